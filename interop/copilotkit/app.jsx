// The page: one AG-UI Dojo feature per URL (?feature=agentic_chat), shown with CopilotKit's
// own chat (CopilotChat) and its v2 hooks, the way the Dojo's pages use them: a frontend tool
// (useFrontendTool), tool rendering (useRenderTool), human in the loop (useHumanInTheLoop), the
// agent's state (useAgent: the recipe, the task's progress, the document), the model's reasoning
// (CopilotChat's "Thought for …"), attachments (CopilotChat's file input), A2UI surfaces painted
// from the page's catalogs (a2ui.jsx) by @copilotkit/a2ui-renderer; and the Dojo's v1 page
// (CopilotKit's v1 provider, @copilotkit/react-ui's chat). Each page serves both
// backends of ag-ui-dojo: the scripts and the model-driven agents. The agent is reached through
// the runtime at /api/copilotkit, or, with ?agent=URL, straight from the page: an HttpAgent of
// @ag-ui/client 1.0.0 posting to URL/<feature> (another origin: the agent must answer CORS
// preflights).
import "@copilotkit/react-core/v2/styles.css";
import "@copilotkit/react-ui/styles.css";

import {
  CopilotChat,
  CopilotKit,
  useAgent,
  useFrontendTool,
  useHumanInTheLoop,
  useRenderTool,
} from "@copilotkit/react-core/v2";
import { CopilotKit as CopilotKitV1 } from "@copilotkit/react-core";
import { CopilotChat as CopilotChatV1 } from "@copilotkit/react-ui";
import { HttpAgent } from "ag-ui-client-1";

import { A2UI_PAGES } from "./a2ui.jsx";
import { useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import { z } from "zod";

const params = new URLSearchParams(location.search);
const feature = params.get("feature") ?? "agentic_chat";
const direct = params.get("agent");

// The page's frontend tool `change_background`: the background it paints.
function useBackground() {
  const [background, setBackground] = useState("rgb(255, 255, 255)");
  useFrontendTool({
    name: "change_background",
    description: "Change the page's background (any CSS background value).",
    parameters: z.object({ background: z.string() }),
    handler: async ({ background }) => {
      setBackground(background);
      return { status: "success", message: `background changed to ${background}` };
    },
  });
  return background;
}

function AgenticChat() {
  const background = useBackground();
  return (
    <div data-testid="background" style={{ background, minHeight: "100vh" }}>
      <CopilotChat agentId={feature} />
    </div>
  );
}

function Weather() {
  useRenderTool({
    name: "get_weather",
    // The scripts name the place `city`, the model-driven agent `location` (as the Dojo's page).
    parameters: z.object({ location: z.string().optional(), city: z.string().optional() }),
    render: ({ status, parameters, result }) => {
      if (status !== "complete") return <div data-testid="weather-loading">Retrieving weather…</div>;
      const weather = JSON.parse(result);
      const feelsLike = weather.feelsLike ?? weather.feels_like;
      return (
        <div data-testid="weather-card">
          <h3 data-testid="weather-city">{parameters.location ?? parameters.city}</h3>
          <p data-testid="weather-conditions">{weather.conditions}</p>
          <p data-testid="weather-temperature">{weather.temperature}°C</p>
          <p data-testid="weather-humidity">Humidity {weather.humidity}%</p>
          <p data-testid="weather-wind">Wind {weather.wind_speed} km/h</p>
          {feelsLike !== undefined && <p data-testid="weather-feels-like">Feels like {feelsLike}°C</p>}
        </div>
      );
    },
  });
  return <CopilotChat agentId={feature} />;
}

const stepsSchema = z.object({
  steps: z.array(z.object({ description: z.string(), status: z.string() })),
});

function HumanInTheLoop() {
  useHumanInTheLoop({
    name: "generate_task_steps",
    description: "Ask the user to pick the steps of a task.",
    parameters: stepsSchema,
    render: ({ args, status, respond }) => (
      <div data-testid="steps-card">
        <ol>
          {(args.steps ?? []).map((step, i) => (
            <li key={i} data-testid="step">
              {step?.description}
            </li>
          ))}
        </ol>
        {status === "executing" && (
          <button
            data-testid="confirm-steps"
            onClick={() => respond({ accepted: true, steps: args.steps })}
          >
            Confirm
          </button>
        )}
        {status === "complete" && <p data-testid="steps-done">Confirmed</p>}
      </div>
    ),
  });
  return <CopilotChat agentId={feature} />;
}

function Haiku() {
  // Offered to the model as a frontend tool, as on the Dojo's page, and answered by the page;
  // every call is rendered as a card (also one arriving in a snapshot, as from the scripts).
  useFrontendTool({
    name: "generate_haiku",
    description: "Show a haiku: three lines in Japanese and their English translation.",
    parameters: z.object({
      japanese: z.array(z.string()),
      english: z.array(z.string()),
      image_name: z.string().optional(),
      gradient: z.string().optional(),
    }),
    handler: async () => "Haiku generated.",
  });
  useRenderTool({
    name: "generate_haiku",
    parameters: z.object({ japanese: z.array(z.string()), english: z.array(z.string()) }),
    render: ({ parameters }) => (
      <div data-testid="haiku-card">
        {(parameters?.japanese ?? []).map((line, i) => (
          <p key={i} data-testid="haiku-line">
            <span data-testid="haiku-japanese">{line}</span> —{" "}
            <span data-testid="haiku-english">{parameters.english?.[i]}</span>
          </p>
        ))}
      </div>
    ),
  });
  return <CopilotChat agentId={feature} />;
}

function SharedState() {
  const { agent } = useAgent({ agentId: feature });
  const recipe = agent.state?.recipe;
  const addIngredient = () =>
    agent.setState({
      ...agent.state,
      recipe: {
        ...recipe,
        ingredients: [...(recipe?.ingredients ?? []), { icon: "🌿", name: "Basil", amount: "a handful" }],
      },
    });
  return (
    <div>
      {recipe && (
        <div data-testid="recipe">
          {recipe.title && <h3 data-testid="recipe-title">{recipe.title}</h3>}
          <p data-testid="recipe-meta">
            {recipe.skill_level} · {recipe.cooking_time}
          </p>
          <ul>
            {recipe.ingredients.map((ingredient, i) => (
              <li key={i} data-testid="ingredient">
                {ingredient.icon} {ingredient.name}: {ingredient.amount}
              </li>
            ))}
          </ul>
          <ol>
            {recipe.instructions.map((instruction, i) => (
              <li key={i} data-testid="instruction">
                {instruction}
              </li>
            ))}
          </ol>
          <button data-testid="add-ingredient" onClick={addIngredient}>
            Add ingredient
          </button>
        </div>
      )}
      <CopilotChat agentId={feature} />
    </div>
  );
}

function PredictiveStateUpdates() {
  // The document: the agent's state when it has one (the model-driven agent publishes it while
  // the model writes it), else the arguments of the latest write_document_local call as they
  // stream in (the scripts announce PredictState, which the v2 hooks do not apply).
  const { agent } = useAgent({ agentId: feature });
  const [written, setWritten] = useState({ id: null, text: "" });
  // Every distinct document shown, so a test can tell it filled in steps.
  const drafts = useRef(new Set());
  const calls = useRef([]);
  useRenderTool({
    name: "write_document_local",
    parameters: z.object({ document: z.string() }),
    render: ({ toolCallId, parameters }) => {
      if (!calls.current.includes(toolCallId)) calls.current.push(toolCallId);
      if (calls.current.at(-1) === toolCallId) {
        const text = parameters?.document ?? "";
        queueMicrotask(() =>
          setWritten((prev) =>
            prev.id === toolCallId && prev.text === text ? prev : { id: toolCallId, text },
          ),
        );
      }
      return <div data-testid="writing">Writing the document…</div>;
    },
  });
  useHumanInTheLoop({
    name: "confirm_changes",
    description: "Ask the user to confirm the document's changes.",
    parameters: z.object({}),
    render: ({ status, respond, result }) => (
      <div data-testid="confirm-card">
        {status === "executing" && (
          <>
            <button data-testid="confirm-changes" onClick={() => respond({ accepted: true })}>
              Confirm
            </button>
            <button data-testid="reject-changes" onClick={() => respond({ accepted: false })}>
              Reject
            </button>
          </>
        )}
        {status === "complete" && (
          <p data-testid="changes-outcome">{JSON.parse(result).accepted ? "Accepted" : "Rejected"}</p>
        )}
      </div>
    ),
  });
  const shown = agent.state?.document ?? written.text;
  if (shown) drafts.current.add(shown);
  return (
    <div>
      <pre data-testid="document" data-drafts={drafts.current.size}>
        {shown}
      </pre>
      <CopilotChat agentId={feature} />
    </div>
  );
}

function AgenticGenerativeUi() {
  const { agent } = useAgent({ agentId: feature });
  const steps = agent.state?.steps ?? [];
  return (
    <div>
      {steps.length > 0 && (
        <ol data-testid="task-progress">
          {steps.map((step, i) => (
            <li key={i} data-testid="task-step" data-status={step.status}>
              {step.description}: {step.status}
            </li>
          ))}
        </ol>
      )}
      <CopilotChat agentId={feature} />
    </div>
  );
}

function AgenticChatReasoning() {
  const { agent } = useAgent({ agentId: feature });
  const background = useBackground();
  return (
    <div data-testid="background" style={{ background, minHeight: "100vh" }}>
      <label>
        Reasoning model{" "}
        <select
          data-testid="reasoning-model"
          value={agent.state?.model ?? "OpenAI"}
          onChange={(e) => agent.setState({ ...agent.state, model: e.target.value })}
        >
          <option>OpenAI</option>
          <option>Anthropic</option>
          <option>Gemini</option>
        </select>
      </label>
      <CopilotChat agentId={feature} />
    </div>
  );
}

function AgenticChatMultimodal() {
  const background = useBackground();
  return (
    <div data-testid="background" style={{ background, minHeight: "100vh" }}>
      <CopilotChat agentId={feature} attachments={{ enabled: true, accept: "image/*" }} />
    </div>
  );
}

// An A2UI page: the chat, the surfaces painted in it (and, while render_a2ui streams,
// CopilotKit's own progress).
function A2ui() {
  return <CopilotChat agentId={feature} />;
}

// The advanced page draws the generated surface's progress itself while render_a2ui streams
// (useRenderTool), as the Dojo's does.
function A2uiAdvanced() {
  useRenderTool({
    name: "render_a2ui",
    parameters: z.any(),
    render: ({ status, parameters }) => {
      if (status === "complete") return <></>;
      const components = Array.isArray(parameters?.components) ? parameters.components.length : 0;
      return <div data-testid="a2ui-progress">Custom A2UI progress: {components} components</div>;
    },
  });
  return <CopilotChat agentId={feature} />;
}

const pages = {
  agentic_chat: AgenticChat,
  backend_tool_rendering: Weather,
  human_in_the_loop: HumanInTheLoop,
  agentic_generative_ui: AgenticGenerativeUi,
  tool_based_generative_ui: Haiku,
  shared_state: SharedState,
  predictive_state_updates: PredictiveStateUpdates,
  agentic_chat_reasoning: AgenticChatReasoning,
  agentic_chat_multimodal: AgenticChatMultimodal,
  a2ui_fixed_schema: A2ui,
  a2ui_dynamic_schema: A2ui,
  a2ui_advanced: A2uiAdvanced,
  a2ui_recovery: A2ui,
};

// The Dojo's v1 page: CopilotKit's v1 provider and @copilotkit/react-ui's chat, on the
// agentic_chat agent, through the runtime.
function V1AgenticChat() {
  return (
    <CopilotKitV1 runtimeUrl="/api/copilotkit" useSingleEndpoint={false} agent="agentic_chat" showDevConsole={false}>
      <CopilotChatV1 labels={{ initial: "Hi, I'm a v1 agent. Want to chat?", placeholder: "Type a message..." }} />
    </CopilotKitV1>
  );
}

function App() {
  if (feature === "v1_agentic_chat") return <V1AgenticChat />;
  const Page = pages[feature];
  if (!Page) return <p data-testid="unknown">no page for {feature}</p>;
  if (direct) {
    const agents = { [feature]: new HttpAgent({ url: `${direct.replace(/\/$/, "")}/${feature}` }) };
    return (
      <CopilotKit selfManagedAgents={agents} a2ui={A2UI_PAGES[feature]}>
        <Page />
      </CopilotKit>
    );
  }
  return (
    <CopilotKit runtimeUrl="/api/copilotkit" useSingleEndpoint={false} a2ui={A2UI_PAGES[feature]}>
      <Page />
    </CopilotKit>
  );
}

createRoot(document.getElementById("root")).render(<App />);
