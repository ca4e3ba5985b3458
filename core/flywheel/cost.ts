/**
 * What a turn of the flywheel costs per 1,000 decisions, at fixed prices: the router's share is its serving time
 * (GPU-hours at its measured decisions per second), and each escalated decision adds the frontier model's price for
 * that request's tokens. The price of sending everything to the frontier is the yardstick.
 */

export interface Prices {
  /** Dollars per GPU-hour of the router's serving. */
  gpuHour: number;
  /** Frontier dollars per million input tokens. */
  inputPerMillion: number;
  /** Frontier dollars per million output tokens. */
  outputPerMillion: number;
}

/** The benchmark's prices: a rented GPU, and a frontier API's list price per token. */
export const DEFAULT_PRICES: Prices = { gpuHour: 2.5, inputPerMillion: 3, outputPerMillion: 15 };

/** Tokens in a request or answer, estimated as characters / 4 of its JSON (no frontier tokenizer is reachable here). */
export const estimateTokens = (value: unknown): number =>
  Math.max(1, Math.ceil((typeof value === 'string' ? value : JSON.stringify(value)).length / 4));

export interface Decision {
  /** The frontier answered it. */
  escalated: boolean;
  /** The frontier's tokens for this request, whether or not it was escalated (for the all-frontier yardstick). */
  frontierTokens: { prompt: number; completion: number };
}

export interface TurnCost {
  /** Dollars per 1K decisions: the router's serving plus the escalations. */
  per1k: number;
  router: number;
  escalations: number;
  /** Dollars per 1K decisions if the frontier answered every one. */
  allFrontierPer1k: number;
  escalationRate: number;
}

const frontierDollars = (t: Decision['frontierTokens'], p: Prices) =>
  (t.prompt * p.inputPerMillion + t.completion * p.outputPerMillion) / 1e6;

/** The cost of these decisions per 1K, with the router serving at `decisionsPerSecond`. */
export function turnCost(
  decisions: readonly Decision[],
  decisionsPerSecond: number,
  prices = DEFAULT_PRICES,
): TurnCost {
  if (decisions.length === 0) throw new RangeError('turnCost: no decisions to price');
  if (!(decisionsPerSecond > 0))
    throw new RangeError(`turnCost: decisions per second must be > 0, not ${decisionsPerSecond}`);
  const per = 1000 / decisions.length;
  const router = (1000 / decisionsPerSecond / 3600) * prices.gpuHour;
  const escalated = decisions.filter((d) => d.escalated);
  const escalations = escalated.reduce((sum, d) => sum + frontierDollars(d.frontierTokens, prices), 0) * per;
  const allFrontierPer1k = decisions.reduce((sum, d) => sum + frontierDollars(d.frontierTokens, prices), 0) * per;
  return {
    per1k: router + escalations,
    router,
    escalations,
    allFrontierPer1k,
    escalationRate: escalated.length / decisions.length,
  };
}
