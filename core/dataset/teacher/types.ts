import type { Intent, Target } from '../types.js';

/** Turns before the request in a multi-turn conversation (OpenAI chat messages, no system turn). */
export type ConversationTurn = {
  role: 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
};

/** A natural-language request drafted for an intent. */
export interface RequestDraft {
  intentId: string;
  request: string;
  /** Earlier turns: the request is then the conversation's last user turn, which decides the call. */
  context?: ConversationTurn[];
  teacher: string;
  /** How the request was phrased (natural phrasing's styles, `clarify`, `described`), counted by `dataset stats`. */
  style?: string;
  /** Set when the teacher never produced a usable answer: validation rejects it as teacher_malformed. */
  malformed?: string;
}

/** The teacher's proposed answer for a request: a tool call or a reasoned abstention. */
export interface Candidate {
  intentId: string;
  request: string;
  context?: ConversationTurn[];
  target: Target;
  teacher: string;
  style?: string;
  malformed?: string;
}

/** The two jobs of a teacher. Implementations: template (deterministic, embedded) and openai (next). */
export interface Teacher {
  name: string;
  /**
   * Drafts for `intents`, or for the rows `range` names of it (a chunk): the other intents are context (a
   * multi-turn draft's earlier turn), so a chunk drafts exactly what the whole run would for its rows.
   */
  generate(intents: Intent[], range?: { from: number; to: number }): Promise<RequestDraft[]>;
  solve(intents: Intent[], drafts: RequestDraft[]): Promise<Candidate[]>;
  /** Counters for the manifest (requests sent, cache hits, retries, malformed outputs). */
  stats?(): Record<string, number>;
  /** Releases what the teacher holds open (the rate-limit store's connection). */
  close?(): Promise<void>;
}
