import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { FlywheelConfig } from '../../core/config/schema.js';
import type { DatasetStageArgs } from '../../activities/stage.js';

/** traces: production trace files (a file, a directory of them, an s3:// prefix) into rows. */
export type TracesArgs = DatasetStageArgs & { catalog: ArtifactRef; traces: FlywheelConfig['traces'] };
