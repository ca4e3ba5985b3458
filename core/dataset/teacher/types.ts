import type { Intent, Target } from '../types.js';

/** A natural-language request drafted for an intent. */
export interface RequestDraft {
  intentId: string;
  request: string;
  teacher: string;
  /** Set when the teacher never produced a usable answer: validation rejects it as teacher_malformed. */
  malformed?: string;
}

/** The teacher's proposed answer for a request: a tool call or a reasoned abstention. */
export interface Candidate {
  intentId: string;
  request: string;
  target: Target;
  teacher: string;
  malformed?: string;
}

/** The two jobs of a teacher. Implementations: template (deterministic, embedded) and openai (next). */
export interface Teacher {
  name: string;
  generate(intents: Intent[]): Promise<RequestDraft[]>;
  solve(intents: Intent[], drafts: RequestDraft[]): Promise<Candidate[]>;
  /** Counters for the manifest (requests sent, cache hits, retries, malformed outputs). */
  stats?(): Record<string, number>;
}
