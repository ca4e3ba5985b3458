import { InputError } from '../errors.js';

/** A trace record that cannot become a trace, with the rejection reason the pipeline reports for it. */
export class TraceError extends InputError {
  constructor(
    readonly reason: string,
    detail: string,
  ) {
    super(detail);
  }
}
