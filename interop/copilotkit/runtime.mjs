// The CopilotKit runtime in front of ag-ui-dojo: one HttpAgent per Dojo feature route.
// HttpAgent comes from the @ag-ui/client the runtime itself depends on (0.0.59 for
// @copilotkit/runtime 1.75, pinned alike in package.json). The README's "Behind CopilotKit"
// section shows this file; examples/dojo/tests/copilotkit.rs checks that it does.
import { HttpAgent } from "@ag-ui/client";
import { CopilotRuntime } from "@copilotkit/runtime/v2";
import { createCopilotNodeListener } from "@copilotkit/runtime/v2/node";

// The A2UI pages: @ag-ui/a2ui-middleware in front of their agents, as the Dojo's runtime wires
// it (a streamed render_a2ui call is painted on the Dojo's dynamic catalog).
export const A2UI_FEATURES = [
  "a2ui_fixed_schema",
  "a2ui_dynamic_schema",
  "a2ui_advanced",
  "a2ui_recovery",
];

export const FEATURES = [
  "agentic_chat",
  "backend_tool_rendering",
  "human_in_the_loop",
  "agentic_generative_ui",
  "tool_based_generative_ui",
  "shared_state",
  "predictive_state_updates",
  "agentic_chat_reasoning",
  "agentic_chat_multimodal",
  ...A2UI_FEATURES,
];

/** A node:http listener serving the runtime under /api/copilotkit, agents at `agentBase`. */
export function copilotListener(agentBase) {
  const agents = Object.fromEntries(
    FEATURES.map((feature) => [feature, new HttpAgent({ url: `${agentBase}/${feature}` })]),
  );
  return createCopilotNodeListener({
    runtime: new CopilotRuntime({
      agents,
      a2ui: {
        agents: A2UI_FEATURES,
        defaultCatalogId: "https://a2ui.org/demos/dojo/dynamic_catalog.json",
      },
    }),
    basePath: "/api/copilotkit",
  });
}
