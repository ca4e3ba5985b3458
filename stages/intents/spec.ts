import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { ServerConfig } from '../../core/config/schema.js';
import type { DatasetStageArgs } from '../../activities/stage.js';

/** intents: what users would ask of each tool, drawn from the domain packs and the servers' probed records. */
export type IntentsArgs = DatasetStageArgs & { catalog: ArtifactRef; servers: ServerConfig[] };
