/**
 * An Anthropic Messages log record: `{request: <messages.create body>, response: <Message>}`. `system` is the system
 * message; a `tool_use` block is an assistant tool call (its `input` the arguments), a `tool_result` block its result
 * (`is_error` kept, so a failed call is not trained on), `thinking` the turn's reasoning; images and documents are
 * not text a router reads.
 */
import { TraceError } from '../trace-error.js';
import type { Trace, TraceMessage } from '../types.js';
import { bad, functionTool, isObj, metadataOf, obj, pushCall, str, textOf, type Obj } from './parts.js';

function readMessage(messages: TraceMessage[], raw: unknown, where: string): void {
  const m = obj(raw, where);
  if (m.role !== 'user' && m.role !== 'assistant') bad(`${where}.role must be user or assistant`);
  if (typeof m.content === 'string') {
    messages.push({ role: m.role, content: m.content });
    return;
  }
  if (!Array.isArray(m.content)) bad(`${where}.content must be a string or a list of blocks`);
  const texts: string[] = [];
  const thoughts: string[] = [];
  let assistant: TraceMessage | undefined;
  m.content.forEach((b, i) => {
    const block = obj(b, `${where}.content[${i}]`);
    const at = `${where}.content[${i}]`;
    if (block.type === 'text') texts.push(str(block.text, `${at}.text`));
    else if (block.type === 'thinking') thoughts.push(str(block.thinking, `${at}.thinking`));
    else if (block.type === 'tool_use') {
      if (m.role !== 'assistant') bad(`${at}: a tool_use block belongs to an assistant message`);
      if (!isObj(block.input)) bad(`${at}.input must be an object`);
      if (!assistant) {
        assistant = { role: 'assistant', content: null, tool_calls: [] };
        messages.push(assistant);
      }
      pushCall(messages, {
        id: str(block.id, `${at}.id`),
        type: 'function',
        function: { name: str(block.name, `${at}.name`), arguments: JSON.stringify(block.input) },
      });
    } else if (block.type === 'tool_result') {
      if (m.role !== 'user') bad(`${at}: a tool_result block belongs to a user message`);
      messages.push({
        role: 'tool',
        tool_call_id: str(block.tool_use_id, `${at}.tool_use_id`),
        content: textOf(block.content, `${at}.content`) ?? '',
        ...(block.is_error === true ? { is_error: true } : {}),
      });
    }
  });
  const text = texts.length ? texts.join('\n') : null;
  if (m.role === 'assistant') {
    if (assistant) {
      assistant.content = text;
      if (thoughts.length) assistant.reasoning_content = thoughts.join('\n');
    } else
      messages.push({
        role: 'assistant',
        content: text,
        ...(thoughts.length ? { reasoning_content: thoughts.join('\n') } : {}),
      });
  } else if (text !== null) messages.push({ role: 'user', content: text });
}

export function readAnthropic(record: Obj): Trace {
  const request = obj(record.request, 'request');
  const response = obj(record.response, 'response');
  const messages: TraceMessage[] = [];
  if (request.system !== undefined && request.system !== null)
    messages.push({ role: 'system', content: textOf(request.system, 'request.system') ?? '' });
  if (!Array.isArray(request.messages)) bad('request.messages must be a list');
  request.messages.forEach((m, i) => readMessage(messages, m, `request.messages[${i}]`));
  if (response.stop_reason === 'max_tokens')
    throw new TraceError('no_answer', 'response was cut at max_tokens (stop_reason max_tokens)');
  if (!Array.isArray(response.content)) throw new TraceError('no_answer', 'response.content holds no blocks');
  readMessage(messages, { role: 'assistant', content: response.content }, 'response');
  const tools = Array.isArray(request.tools)
    ? request.tools.flatMap((t, i) => {
        const tool = obj(t, `request.tools[${i}]`);
        // Server tools (web search, code execution) have no input_schema: they are not the caller's tools.
        return isObj(tool.input_schema)
          ? [functionTool(tool.name, tool.description, tool.input_schema, `request.tools[${i}]`)]
          : [];
      })
    : undefined;
  const metadata = metadataOf(record.metadata);
  return { messages, ...(tools ? { tools } : {}), ...(metadata ? { metadata } : {}) };
}
