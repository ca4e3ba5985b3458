/** Small builders for tool input schemas: every object is closed (additionalProperties: false). */
type S = Record<string, unknown>;

export const str = (description: string, extra: S = {}): S => ({ type: 'string', description, ...extra });
export const int = (description: string, extra: S = {}): S => ({ type: 'integer', description, ...extra });
export const num = (description: string, extra: S = {}): S => ({ type: 'number', description, ...extra });
export const bool = (description: string): S => ({ type: 'boolean', description });
export const enumOf = (values: readonly string[], description: string): S => ({
  type: 'string',
  enum: [...values],
  description,
});
export const date = (description: string): S => ({ type: 'string', format: 'date', description });
export const money = (description: string, max = 1e12): S => ({
  type: 'number',
  minimum: 0,
  maximum: max,
  multipleOf: 0.01,
  description,
});

export function object(properties: Record<string, S>, required: string[] = [], extra: S = {}): S {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}
