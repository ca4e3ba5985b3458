import { ApplicationFailure } from '@temporalio/common';
import { ArtifactError } from '../core/artifacts/types.js';
import { ConfigError } from '../core/config/load.js';
import { McpServerError } from '../core/mcp/connect.js';
import { TeacherConfigError } from '../core/dataset/teacher/openai.js';
import { TrainJobError } from '../core/train/job.js';
import { EvalInputError } from '../core/eval/cases.js';
import { BackendError } from '../core/deploy/backend.js';
import { SmokeTestFailed } from '../core/deploy/deploy.js';
import { RegistryConflict } from '../core/deploy/registry.js';
import { PermanentError } from '../core/errors.js';

/**
 * Turn errors that retrying cannot fix into non-retryable failures whose type names the cause, so a
 * bad config or a missing command fails the run at once with a message naming the field or server.
 */
export async function failFast<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof PermanentError || err instanceof ConfigError || err instanceof ArtifactError || err instanceof TeacherConfigError || err instanceof TrainJobError || err instanceof EvalInputError || err instanceof SmokeTestFailed || err instanceof RegistryConflict) {
      throw ApplicationFailure.nonRetryable(err.message, err.name);
    }
    if (err instanceof McpServerError || err instanceof BackendError) {
      if (!err.retryable) throw ApplicationFailure.nonRetryable(err.message, err.name);
      throw ApplicationFailure.retryable(err.message, err.name);
    }
    throw err;
  }
}
