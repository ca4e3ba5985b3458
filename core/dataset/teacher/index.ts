import type { ArtifactStore } from '../../artifacts/index.js';
import type { TeacherConfig } from '../../config/schema.js';
import { openaiTeacher, type ToolDef } from './openai.js';
import { templateTeacher } from './template.js';
import type { Teacher } from './types.js';

export interface TeacherDeps {
  /** Where the openai teacher caches responses (by a hash of the request), so retries never pay twice. */
  store: ArtifactStore;
  onProgress?: (details: unknown) => void;
}

/** `toolsByDomain`: the catalog tools the teacher may call when solving (the template teacher needs none). */
export function makeTeacher(
  config: TeacherConfig,
  seed: string | number,
  deps: TeacherDeps,
  toolsByDomain?: Map<string, ToolDef[]>,
): Teacher {
  if (config.kind === 'template') return templateTeacher(seed);
  return openaiTeacher(config, { ...deps, seed }, toolsByDomain);
}
