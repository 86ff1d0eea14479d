// The page: one AG-UI Dojo feature per URL (?feature=agentic_chat), shown with CopilotKit's
// own chat (CopilotChat) and its v2 hooks, the way the Dojo's pages use them: a frontend tool
// (useFrontendTool), tool rendering (useRenderTool), human in the loop (useHumanInTheLoop), the
// agent's state (useAgent: the recipe, the task's progress). The agent is reached through the
// runtime at /api/copilotkit, or, with ?agent=URL, straight from the page: an HttpAgent of
// @ag-ui/client 1.0.0 posting to URL/<feature> (another origin: the agent must answer CORS
// preflights).
import "@copilotkit/react-core/v2/styles.css";

import {
  CopilotChat,
  CopilotKit,
  useAgent,
  useFrontendTool,
  useHumanInTheLoop,
  useRenderTool,
} from "@copilotkit/react-core/v2";
import { HttpAgent } from "ag-ui-client-1";
import { useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import { z } from "zod";

const params = new URLSearchParams(location.search);
const feature = params.get("feature") ?? "agentic_chat";
const direct = params.get("agent");

function AgenticChat() {
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
  return (
    <div data-testid="background" style={{ background, minHeight: "100vh" }}>
      <CopilotChat agentId={feature} />
    </div>
  );
}

function Weather() {
  useRenderTool({
    name: "get_weather",
    parameters: z.object({ city: z.string() }),
    render: ({ status, parameters, result }) => {
      if (status !== "complete") return <div data-testid="weather-loading">Retrieving weather…</div>;
      const weather = JSON.parse(result);
      return (
        <div data-testid="weather-card">
          <h3 data-testid="weather-city">{parameters.city}</h3>
          <p data-testid="weather-conditions">{weather.conditions}</p>
          <p data-testid="weather-temperature">{weather.temperature}°C</p>
          <p data-testid="weather-humidity">Humidity {weather.humidity}%</p>
          <p data-testid="weather-wind">Wind {weather.wind_speed} km/h</p>
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
  // The document as the arguments of the latest write_document_local call stream in.
  const [written, setWritten] = useState({ id: null, text: "" });
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
  return (
    <div>
      <pre data-testid="document">{written.text}</pre>
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

const pages = {
  agentic_chat: AgenticChat,
  backend_tool_rendering: Weather,
  human_in_the_loop: HumanInTheLoop,
  agentic_generative_ui: AgenticGenerativeUi,
  tool_based_generative_ui: Haiku,
  shared_state: SharedState,
  predictive_state_updates: PredictiveStateUpdates,
};

function App() {
  const Page = pages[feature];
  if (!Page) return <p data-testid="unknown">no page for {feature}</p>;
  if (direct) {
    const agents = { [feature]: new HttpAgent({ url: `${direct.replace(/\/$/, "")}/${feature}` }) };
    return (
      <CopilotKit selfManagedAgents={agents}>
        <Page />
      </CopilotKit>
    );
  }
  return (
    <CopilotKit runtimeUrl="/api/copilotkit" useSingleEndpoint={false}>
      <Page />
    </CopilotKit>
  );
}

createRoot(document.getElementById("root")).render(<App />);
