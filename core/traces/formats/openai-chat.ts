/**
 * An OpenAI chat completions log record, as LLM gateways log them: `{request: <chat.completions.create body>,
 * response: <ChatCompletion>}`. The request's messages, then the first choice's message.
 */
import { TraceError } from '../trace-error.js';
import type { Trace, TraceMessage } from '../types.js';
import { bad, functionTool, isObj, metadataOf, obj, str, textOf, type Obj } from './parts.js';

function message(raw: unknown, where: string): TraceMessage {
  const m = obj(raw, where);
  const role = m.role === 'developer' ? 'system' : m.role;
  if (m.function_call !== undefined || role === 'function')
    throw new TraceError(
      'unsupported',
      `${where}: the legacy functions API (function_call) is not read; log tool_calls`,
    );
  if (role === 'system' || role === 'user') return { role, content: textOf(m.content, `${where}.content`) ?? '' };
  if (role === 'tool')
    return {
      role,
      tool_call_id: str(m.tool_call_id, `${where}.tool_call_id`),
      content: textOf(m.content, `${where}.content`) ?? '',
    };
  if (role !== 'assistant') bad(`${where}.role must be system, developer, user, assistant or tool`);
  const out: TraceMessage = { role: 'assistant', content: textOf(m.content, `${where}.content`) };
  if (m.tool_calls !== undefined && m.tool_calls !== null) {
    if (!Array.isArray(m.tool_calls)) bad(`${where}.tool_calls must be a list`);
    out.tool_calls = m.tool_calls.map((c, j) => {
      const call = obj(c, `${where}.tool_calls[${j}]`);
      const fn = obj(call.function, `${where}.tool_calls[${j}].function`);
      return {
        id: str(call.id, `${where}.tool_calls[${j}].id`),
        type: 'function' as const,
        function: {
          name: str(fn.name, `${where}.tool_calls[${j}].function.name`),
          arguments: str(fn.arguments, `${where}.tool_calls[${j}].function.arguments`),
        },
      };
    });
  }
  return out;
}

export function readOpenAiChat(record: Obj): Trace {
  const request = obj(record.request, 'request');
  const response = obj(record.response, 'response');
  if (!Array.isArray(request.messages)) bad('request.messages must be a list');
  const messages = request.messages.map((m, i) => message(m, `request.messages[${i}]`));
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  if (!isObj(choice) || !isObj(choice.message)) throw new TraceError('no_answer', 'response.choices holds no message');
  if (choice.finish_reason === 'length')
    throw new TraceError('no_answer', 'response.choices[0] was cut at max_tokens (finish_reason length)');
  messages.push(message(choice.message, 'response.choices[0].message'));
  if (request.functions !== undefined && request.tools === undefined)
    throw new TraceError('unsupported', 'request.functions: the legacy functions API is not read; log tools');
  const tools = Array.isArray(request.tools)
    ? request.tools.flatMap((t, i) => {
        const tool = obj(t, `request.tools[${i}]`);
        if (tool.type !== 'function') return [];
        const fn = obj(tool.function, `request.tools[${i}].function`);
        return [functionTool(fn.name, fn.description, fn.parameters, `request.tools[${i}].function`)];
      })
    : undefined;
  const metadata = metadataOf(request.metadata, record.metadata);
  return { messages, ...(tools ? { tools } : {}), ...(metadata ? { metadata } : {}) };
}
