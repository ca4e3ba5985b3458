/**
 * An approximate token count: words, numbers and single punctuation marks, as byte-level BPE
 * pre-tokenizers split text. Real counts depend on the base model's tokenizer (the trainer reports those);
 * this is for sizing rows in previews, not for max-length checks.
 */
export function approxTokens(text: string): number {
  return text.match(/[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d]/g)?.length ?? 0;
}
