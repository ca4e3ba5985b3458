/**
 * PII redaction with consistent pseudonyms: the same value becomes the same placeholder everywhere in a
 * trace (text and tool arguments alike), so a call's arguments still match what the conversation says.
 */
const PATTERNS: Array<{ kind: string; re: RegExp; valid?: (s: string) => boolean }> = [
  {
    kind: 'token',
    re: /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}\b|\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bxox[abpr]-[A-Za-z0-9-]{10,}\b/g,
  },
  { kind: 'email', re: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g },
  { kind: 'card', re: /\b(?:\d[ -]?){13,19}\b/g, valid: luhn },
  // Not part of a longer digit run (a card number that failed Luhn, an account number).
  {
    kind: 'phone',
    re: /(?<!\d[\s.-]?)(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{3,4}[\s.-]\d{3,4}(?:[\s.-]\d{2,4})?\b(?![\s.-]?\d)/g,
    valid: (s) => {
      const n = s.replace(/\D/g, '').length;
      return n >= 9 && n <= 15;
    },
  },
];

function luhn(s: string): boolean {
  const digits = s.replace(/\D/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export class Redactor {
  private readonly seen = new Map<string, string>();
  private readonly perKind: Record<string, number> = {};
  readonly counts: Record<string, number> = {};

  private placeholder(kind: string, value: string): string {
    let p = this.seen.get(value);
    if (!p) {
      const n = (this.perKind[kind] = (this.perKind[kind] ?? 0) + 1);
      p = kind === 'email' ? `user${n}@example.com` : `[${kind.toUpperCase()}_${n}]`;
      this.seen.set(value, p);
    }
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    return p;
  }

  text(s: string): string {
    let out = s;
    for (const { kind, re, valid } of PATTERNS)
      out = out.replace(re, (m) => (valid && !valid(m) ? m : this.placeholder(kind, m)));
    return out;
  }

  /** Redact every string inside a JSON value. */
  value<T>(v: T): T {
    if (typeof v === 'string') return this.text(v) as T;
    if (Array.isArray(v)) return v.map((x) => this.value(x)) as T;
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.value(x)])) as T;
    return v;
  }
}
