/**
 * Credentials come from environment variables and errors name the variable, never the value: an endpoint that
 * echoes the key it refused (some do, partly masked or not) must not put it into an activity failure, a
 * workflow history or a trace.
 */

/** `text` with every occurrence of `secret` replaced by `$ENV_NAME`. */
export function redact(text: string, secret: string | null | undefined, envName: string): string {
  return secret ? text.split(secret).join(`$${envName}`) : text;
}

/** Whether an HTTP status means the credential was refused (retrying with the same one cannot help). */
export function refusedCredential(status: number | null | undefined): boolean {
  return status === 401 || status === 403;
}
