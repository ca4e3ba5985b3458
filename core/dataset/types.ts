import type { EntityPools } from '../probe/types.js';
import type { Rng } from '../rng.js';

/** Who is asking: the scopes decide which calls they may make (RBAC is part of the target). */
export interface Persona {
  name: string;
  domain: string;
  scopes: string[];
}

export interface ToolCallTarget {
  tool: string;
  arguments: Record<string, unknown>;
}

/** No call: `code` is the machine reason (no_tool, missing_scope, policy_violation, ...). */
export interface NoCallTarget {
  tool: null;
  verdict: 'abstain' | 'violation' | 'escalate';
  code: string;
  reason: string;
}

export type Target = ToolCallTarget | NoCallTarget;

/** What a goal template produces for one draw: the call, the values phrasings can mention, the entities touched. */
export interface GoalDraw {
  arguments: Record<string, unknown>;
  slots: Record<string, string | number>;
  /** Entity keys like "salesforce:account:001…"; the first is the split key. */
  entities: string[];
  /** Phrasings for this draw only (generic goals phrase each argument set); else the goal's. */
  phrasings?: string[];
  /** The style of each of those phrasings (natural phrasing), for `dataset stats`. */
  styles?: string[];
  /** Clarifying exchanges (natural phrasing): a first ask lacking one value, the question, the answer. */
  dialogues?: Dialogue[];
}

/** A clarifying exchange, {slot} placeholders as in phrasings. */
export interface Dialogue {
  opener: string;
  question: string;
  answer: string;
}

/** One way users ask for one tool. Phrasings use {slot} placeholders. */
export interface Goal {
  id: string;
  tool: string;
  phrasings: string[];
  draw(pools: EntityPools, rng: Rng): GoalDraw | undefined;
  /** What a trial call said of a draw's arguments: generic goals stop offering values the server refused. */
  feedback?(args: Record<string, unknown>, accepted: boolean): void;
}

/** An intent: a persona wanting something, with concrete slot values. Unsatisfiable ones have no tool. */
export interface Intent {
  id: string;
  domain: string;
  persona: Persona;
  goal: string;
  tool: string | null;
  arguments: Record<string, unknown>;
  slots: Record<string, string | number>;
  entities: string[];
  phrasings: string[];
  /** What the tool does, from its catalog description (generic intents), for a teacher that writes requests. */
  toolDescription?: string;
  styles?: string[];
  dialogues?: Dialogue[];
}

/** A training row (DESIGN §3): the request, the offered tool slice, the persona, and the target. */
export interface RouterRow {
  id: string;
  domain: string;
  /** Entity keys; the first decides the split, so no account/customer/invoice spans two splits. */
  entities: string[];
  request: string;
  /** For rows unrolled from traces: the conversation before the target turn (OpenAI message format). */
  messages?: Array<{ role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
  persona: { name: string; scopes: string[] };
  /** Names of the offered tools (the correct one plus distractors, or without it). */
  tools: string[];
  target: Target;
  provenance: {
    source: 'generated' | 'trace' | 'handwritten';
    intent?: string;
    goal?: string;
    teacher?: string;
    /** Corruption operator that made this negative, and the tempting wrong call it guards against. */
    operator?: string;
    negativeCall?: ToolCallTarget;
    /** The positive row a negative was derived from. */
    from?: string;
    /** file:row of the trace a row was unrolled from. */
    trace?: string;
    /** The format of that trace, when it was not the plain messages one (core/traces/formats/). */
    format?: string;
    /** How validation checked the call: executed (read-only), dry-run, or against the schema only. */
    checkedBy?: 'execute' | 'dry-run' | 'schema';
    /** How the request was phrased (natural phrasing: command, question, …, clarify, described). */
    style?: string;
  };
}
