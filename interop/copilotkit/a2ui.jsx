// The A2UI catalogs of the page, as the AG-UI Dojo's A2UI pages register them with
// <CopilotKit a2ui={{ catalog }}>: the fixed-schema catalog (Row, FlightCard, HotelCard,
// StarRating) and the dynamic one (Row, HotelCard, ProductCard, TeamMemberCard), under the
// Dojo's catalog ids. @copilotkit/a2ui-renderer paints the surfaces the runtime's
// @ag-ui/a2ui-middleware reads from the agent's tool results, and sends these components'
// schemas with every run (the catalog ag-ui-dojo's generate_a2ui checks surfaces against).
import { ActionSchema, ChildListSchema, DynamicNumberSchema, DynamicStringSchema } from "@a2ui/web_core/v0_9";
import { Catalog, createReactComponent } from "@copilotkit/a2ui-renderer";
import { useState } from "react";
import { z } from "zod";

const text = DynamicStringSchema;

const Row = createReactComponent(
  { name: "Row", schema: z.object({ gap: z.number().optional(), children: ChildListSchema }) },
  ({ props, buildChild }) => (
    <div data-testid="a2ui-row" style={{ display: "flex", gap: `${props.gap ?? 16}px`, flexWrap: "wrap" }}>
      {(Array.isArray(props.children) ? props.children : []).map((child, i) =>
        typeof child === "string" ? (
          <div key={`${child}-${i}`}>{buildChild(child)}</div>
        ) : child?.id ? (
          <div key={`${child.id}-${i}`}>{buildChild(child.id, child.basePath)}</div>
        ) : null,
      )}
    </div>
  ),
);

// A card's button: the surface's action (sent to the agent by the middleware), once.
function ActionButton({ label, action }) {
  const [done, setDone] = useState(false);
  return (
    <button
      data-testid="a2ui-action"
      disabled={done}
      style={{ marginTop: 8, padding: "4px 12px", border: "1px solid #999", borderRadius: 8 }}
      onClick={() => {
        action?.();
        setDone(true);
      }}
    >
      {done ? `${label}ed` : label}
    </button>
  );
}

const card = { border: "1px solid #ddd", borderRadius: 12, padding: 12, minWidth: 200 };

function Stars({ value }) {
  const rating = typeof value === "number" ? value : 0;
  return (
    <span data-testid="a2ui-rating" title={`${rating} of 5`}>
      {"★".repeat(Math.round(rating))}
      {"☆".repeat(5 - Math.round(rating))} {rating.toFixed(1)}
    </span>
  );
}

const StarRating = createReactComponent(
  { name: "StarRating", schema: z.object({ value: DynamicNumberSchema }) },
  ({ props }) => <Stars value={props.value} />,
);

const FlightCard = createReactComponent(
  {
    name: "FlightCard",
    schema: z.object({
      airline: text,
      airlineLogo: text,
      flightNumber: text,
      origin: text,
      destination: text,
      date: text,
      departureTime: text,
      arrivalTime: text,
      duration: text,
      status: text,
      price: text,
      action: ActionSchema,
    }),
  },
  ({ props }) => (
    <div data-testid="flight-card" style={card}>
      <strong>{props.airline}</strong> <span data-testid="flight-price">{props.price}</span>
      <div data-testid="flight-number">{props.flightNumber}</div>
      <div>
        {props.origin} {props.departureTime} → {props.destination} {props.arrivalTime} ({props.duration})
      </div>
      <div>
        {props.date} · {props.status}
      </div>
      <ActionButton label="Select" action={props.action} />
    </div>
  ),
);

const HotelCard = createReactComponent(
  {
    name: "HotelCard",
    schema: z.object({
      name: text,
      location: text,
      rating: DynamicNumberSchema,
      pricePerNight: text,
      amenities: text.optional(),
      action: ActionSchema,
    }),
  },
  ({ props }) => (
    <div data-testid="hotel-card" style={card}>
      <strong data-testid="hotel-name">{props.name}</strong>
      <div>{props.location}</div>
      <Stars value={props.rating} />
      <div data-testid="hotel-price">{props.pricePerNight}</div>
      <ActionButton label="Book" action={props.action} />
    </div>
  ),
);

const ProductCard = createReactComponent(
  {
    name: "ProductCard",
    schema: z.object({
      name: text,
      price: text,
      rating: DynamicNumberSchema,
      description: text,
      action: ActionSchema,
    }),
  },
  ({ props }) => (
    <div data-testid="product-card" style={card}>
      <strong>{props.name}</strong> <span>{props.price}</span>
      <Stars value={props.rating} />
      <p>{props.description}</p>
      <ActionButton label="Select" action={props.action} />
    </div>
  ),
);

const TeamMemberCard = createReactComponent(
  {
    name: "TeamMemberCard",
    schema: z.object({
      name: text,
      role: text,
      department: text,
      email: text,
      action: ActionSchema,
    }),
  },
  ({ props }) => (
    <div data-testid="team-member-card" style={card}>
      <strong>{props.name}</strong>
      <div>{props.role}</div>
      <div>{props.department}</div>
      <div>{props.email}</div>
      <ActionButton label="Contact" action={props.action} />
    </div>
  ),
);

export const fixedCatalog = new Catalog(
  "https://a2ui.org/demos/dojo/fixed_catalog.json",
  [Row, FlightCard, HotelCard, StarRating],
  [],
);

export const dynamicCatalog = new Catalog(
  "https://a2ui.org/demos/dojo/dynamic_catalog.json",
  [Row, HotelCard, ProductCard, TeamMemberCard],
  [],
);

// Each A2UI page's `a2ui` setting of <CopilotKit>, as the Dojo's pages set it.
export const A2UI_PAGES = {
  a2ui_fixed_schema: { catalog: fixedCatalog },
  a2ui_dynamic_schema: { catalog: dynamicCatalog },
  a2ui_advanced: { catalog: dynamicCatalog },
  // The mock's attempts are instant: show "Retrying…" at once, as the Dojo's page does.
  a2ui_recovery: { catalog: dynamicCatalog, recovery: { showAfterMs: 0, showAfterAttempts: 1 } },
};
