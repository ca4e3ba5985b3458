import type { DeployTarget } from './types.js';
import { InputError, TransientError } from '../errors.js';

/** The backend failed a call in a way that may pass: unreachable, timed out, a 5xx or 429. */
export class BackendError extends TransientError {
  override name = 'BackendError';
}

/** The backend refused a call (a 4xx): sending it again cannot help. */
export class BackendRefusal extends InputError {
  override name = 'BackendRefusal';
}

function backendError(message: string, retryable: boolean): BackendError | BackendRefusal {
  return retryable ? new BackendError(message) : new BackendRefusal(message);
}

/**
 * vLLM answers 500 when its engine refuses the adapter itself (a rank above --max-lora-rank, target modules or
 * weights it cannot take, DoRA, a bias): "Call to add_lora method failed: …". Loading it again cannot help.
 */
function adapterRefused(text: string): boolean {
  return /add_lora method failed|greater than max_lora_rank|expected target modules|doesn't contain tensors|does not yet support|bias is not supported/i.test(
    text,
  );
}

/** How requests reach one version on a backend. */
export interface Route {
  servedModel: string;
  adapterId: string | null;
  /** The backend's id of the plain base model (smoke tests compare against it); '' = LoRAX's base. */
  baseModel: string;
}

/**
 * A serving backend behind an OpenAI base URL. `local` (the trainer's serve) and `vllm` share vLLM's runtime
 * LoRA API (`/v1/load_lora_adapter`, `/v1/unload_lora_adapter`, `parent` in `/v1/models`); LoRAX loads an
 * adapter on the first request that names it, so load and unload are no-ops there.
 */
export class Backend {
  /**
   * `apiKey`: the inference key; `adminToken`: what loading and unloading adapters need (the local serve keeps the
   * two apart; vLLM has one key for everything, so without an admin token the API key is sent).
   */
  constructor(
    readonly target: DeployTarget,
    readonly endpoint: string,
    private readonly apiKey?: string,
    private readonly timeoutMs = 120_000,
    private readonly adminToken?: string,
  ) {}

  /** Make `name` servable from `adapterPath` (a directory the backend can read). Idempotent. */
  async load(name: string, adapterPath: string): Promise<Route> {
    if (this.target === 'lorax') return { servedModel: adapterPath, adapterId: adapterPath, baseModel: '' };
    const res = await this.call(
      'POST',
      '/load_lora_adapter',
      { lora_name: name, lora_path: adapterPath },
      this.adminCredential(),
    );
    // A retry after a crash between load and the alias flip finds the version loaded: that is success.
    if (!res.ok && !(res.status === 400 && /already been loaded/i.test(res.text))) {
      throw backendError(
        `${this.endpoint}: loading ${name} from ${adapterPath} failed (${res.status}): ${res.text.slice(0, 300)}`,
        (res.status >= 500 || res.status === 429) && !adapterRefused(res.text),
      );
    }
    return { servedModel: name, adapterId: null, baseModel: await this.parentOf(name) };
  }

  /** Remove `name` from the backend; a version that is not loaded is fine. */
  async unload(name: string): Promise<void> {
    if (this.target === 'lorax') return;
    const res = await this.call('POST', '/unload_lora_adapter', { lora_name: name }, this.adminCredential());
    if (!res.ok && res.status !== 404)
      throw backendError(
        `${this.endpoint}: unloading ${name} failed (${res.status}): ${res.text.slice(0, 300)}`,
        res.status >= 500,
      );
  }

  /** Whether the backend lists `name` now (a restarted backend forgets runtime-loaded adapters). */
  async isLoaded(name: string): Promise<boolean> {
    if (this.target === 'lorax') return true;
    return (await this.models()).some((m) => m.id === name);
  }

  private async parentOf(name: string): Promise<string> {
    const models = await this.models();
    const entry = models.find((m) => m.id === name);
    if (!entry) throw new BackendError(`${this.endpoint}: ${name} was loaded but /models does not list it`);
    return entry.parent ?? models.find((m) => !m.parent)?.id ?? '';
  }

  private async models(): Promise<Array<{ id: string; parent?: string | null }>> {
    const res = await this.call('GET', '/models');
    if (!res.ok)
      throw backendError(
        `${this.endpoint}/models answered ${res.status}: ${res.text.slice(0, 300)}`,
        res.status >= 500,
      );
    return (JSON.parse(res.text) as { data: Array<{ id: string; parent?: string | null }> }).data;
  }

  /** The local serve keeps an admin token apart from inference keys; vLLM has one key for everything. */
  private adminCredential(): string | undefined {
    return this.target === 'local' ? (this.adminToken ?? this.apiKey) : this.apiKey;
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    token = this.apiKey,
  ): Promise<{ ok: boolean; status: number; text: string }> {
    const url = `${this.endpoint.replace(/\/+$/, '')}${path}`;
    try {
      const res = await fetch(url, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      return { ok: res.ok, status: res.status, text: await res.text() };
    } catch (err) {
      // Connection refused / timeout: the backend may be restarting; worth retrying.
      throw new BackendError(
        `${url}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message} (is the serving backend running? \`flywheel serve\` starts the local one)`,
      );
    }
  }
}
