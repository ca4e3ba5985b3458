/**
 * An OpenAI Responses API log record: `{request: <responses.create body>, response: <Response>}`. `instructions`
 * is the system message; input and output items are read in order: messages, `function_call` (an assistant tool
 * call) and `function_call_output` (its result); reasoning and built-in tools' items are not a router's.
 */
import { TraceError } from '../trace-error.js';
import type { Trace, TraceMessage } from '../types.js';
import { bad, functionTool, isObj, metadataOf, obj, pushCall, str, textOf, type Obj } from './parts.js';

function readItem(messages: TraceMessage[], raw: unknown, where: string): void {
  const item = obj(raw, where);
  if (item.type === 'function_call') {
    pushCall(messages, {
      id: str(item.call_id, `${where}.call_id`),
      type: 'function',
      function: { name: str(item.name, `${where}.name`), arguments: str(item.arguments, `${where}.arguments`) },
    });
    return;
  }
  if (item.type === 'function_call_output') {
    const output = typeof item.output === 'string' ? item.output : textOf(item.output, `${where}.output`);
    messages.push({ role: 'tool', tool_call_id: str(item.call_id, `${where}.call_id`), content: output ?? '' });
    return;
  }
  if (item.type !== undefined && item.type !== 'message') return;
  const role = item.role === 'developer' ? 'system' : item.role;
  if (role !== 'system' && role !== 'user' && role !== 'assistant')
    bad(`${where}.role must be system, developer, user or assistant`);
  const content = textOf(item.content, `${where}.content`);
  messages.push(role === 'assistant' ? { role, content } : { role, content: content ?? '' });
}

export function readOpenAiResponses(record: Obj): Trace {
  const request = obj(record.request, 'request');
  const response = obj(record.response, 'response');
  const messages: TraceMessage[] = [];
  if (request.instructions !== undefined && request.instructions !== null)
    messages.push({ role: 'system', content: str(request.instructions, 'request.instructions') });
  if (typeof request.input === 'string') messages.push({ role: 'user', content: request.input });
  else if (Array.isArray(request.input))
    request.input.forEach((it, i) => readItem(messages, it, `request.input[${i}]`));
  else bad('request.input must be a string or a list of items');
  if (response.status !== undefined && response.status !== 'completed')
    throw new TraceError('no_answer', `response.status is ${JSON.stringify(response.status)}, not completed`);
  if (!Array.isArray(response.output) || response.output.length === 0)
    throw new TraceError('no_answer', 'response.output holds no item');
  response.output.forEach((it, i) => readItem(messages, it, `response.output[${i}]`));
  const tools = Array.isArray(request.tools)
    ? request.tools.flatMap((t, i) => {
        const tool = obj(t, `request.tools[${i}]`);
        return tool.type === 'function'
          ? [functionTool(tool.name, tool.description, tool.parameters, `request.tools[${i}]`)]
          : [];
      })
    : undefined;
  const metadata = metadataOf(isObj(request.metadata) ? request.metadata : undefined, record.metadata);
  return { messages, ...(tools ? { tools } : {}), ...(metadata ? { metadata } : {}) };
}
