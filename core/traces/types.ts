/** OpenAI-format agent traces, as production logs them. */
export interface TraceToolCall {
  id: string;
  type?: 'function';
  function: { name: string; arguments: string };
}

export interface TraceMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string | null;
  tool_calls?: TraceToolCall[];
  tool_call_id?: string;
  /** Chain-of-thought some models return; never kept in training context. */
  reasoning_content?: string;
  /** A tool result its format marks as failed (Anthropic's `is_error`): the call is not a training target. */
  is_error?: boolean;
}

export interface Trace {
  messages: TraceMessage[];
  tools?: Array<{
    type: 'function';
    function: { name: string; description?: string; parameters?: Record<string, unknown> };
  }>;
  /** Which server's tools these are (a config server name), and who was asking. */
  metadata?: { domain?: string; persona?: string; scopes?: string[]; [k: string]: unknown };
}

export interface TraceRejection {
  file: string;
  /** 1-based line for JSONL, 1-based index in the array for JSON. */
  row: number;
  reason: string;
  detail: string;
}

/** The files a trace directory or S3 prefix contributes. */
export const TRACE_FILE_RE = /\.(jsonl|json)$/i;
