import type { LossPoint } from './types.js';
import type { ReliabilityBin } from './calibration.js';

/**
 * Small pure SVG plot builders for the HTML report: strings in, an inline <svg> string out.
 * No scripts, no external refs; every data text is escaped; coordinates are always finite.
 */

/** Endpoint colours (Tableau 10), cycled; every plot uses the same order so one legend reads for all. */
export const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#b07aa1',
  '#edc948',
  '#9c755f',
  '#ff9da7',
  '#bab0ac',
];
export const colour = (i: number): string => PALETTE[i % PALETTE.length] ?? '#4e79a7';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Escapes for both text and attribute values (HTML and SVG alike). */
export const esc = (s: string): string => String(s).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

const fin = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
/** A coordinate: one decimal, and 0 rather than NaN should arithmetic ever go wrong. */
const f = (x: number): string => (fin(x) ? String(Math.round(x * 10) / 10) : '0');
/** Rough text width for layout (no font metrics offline). */
const textW = (s: string, size = 11): number => s.length * size * 0.6;
const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const fmtTick = (v: number): string => String(Number(v.toPrecision(6)));
/** [min, max] by reduce: spreading a long run into Math.min would overflow the stack. */
const extent = (xs: number[]): [number, number] => [
  xs.reduce((a, b) => Math.min(a, b), Infinity),
  xs.reduce((a, b) => Math.max(a, b), -Infinity),
];

/** Round axis extents and ticks covering [lo, hi] with about `count` steps. */
export function niceDomain(lo: number, hi: number, count = 5): { lo: number; hi: number; ticks: number[] } {
  if (!fin(lo) || !fin(hi)) return { lo: 0, hi: 1, ticks: [0, 1] };
  if (hi <= lo) hi = lo + (lo === 0 ? 1 : Math.abs(lo) * 0.1);
  const raw = (hi - lo) / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  const step = (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
  const a = Math.floor(lo / step + 1e-9);
  const b = Math.ceil(hi / step - 1e-9);
  const ticks: number[] = [];
  for (let i = a; i <= b; i++) ticks.push(Number((i * step).toPrecision(12)));
  return { lo: a * step, hi: b * step, ticks };
}

function open(id: string, title: string, w: number, h: number): string {
  return `<svg id="${id}" class="plot" viewBox="0 0 ${f(w)} ${f(h)}" width="${f(w)}" height="${f(h)}" role="img" aria-label="${esc(title)}" font-family="system-ui, sans-serif" font-size="11"><title>${esc(title)}</title>`;
}

/** A plot with nothing to draw still gets its id, with a short note instead of axes. */
function emptyPlot(id: string, title: string, note: string): string {
  return `${open(id, title, 360, 40)}<text class="empty" x="8" y="24" fill="#666">${esc(note)}</text></svg>`;
}

function legend(labels: string[], x: number, y: number, colourOf: (i: number) => string = colour): string {
  let cx = x;
  return labels
    .map((l, i) => {
      const shown = clip(l, 32);
      const s = `<g class="legend-item"><rect x="${f(cx)}" y="${f(y - 9)}" width="10" height="10" fill="${colourOf(i)}"/><text x="${f(cx + 14)}" y="${f(y)}">${esc(shown)}</text></g>`;
      cx += 14 + textW(shown) + 16;
      return s;
    })
    .join('');
}

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}
interface Axis {
  lo: number;
  hi: number;
  ticks: number[];
  label: string;
}
const scale =
  (a: Axis, r0: number, r1: number) =>
  (v: number): number =>
    r0 + ((v - a.lo) / (a.hi - a.lo || 1)) * (r1 - r0);

/** Axis lines, ticks, horizontal grid and axis titles for a plot box. */
function axes(x: Axis, y: Axis, b: Box): string {
  const sx = scale(x, b.left, b.left + b.width);
  const sy = scale(y, b.top + b.height, b.top);
  const bottom = b.top + b.height;
  const parts = [`<g class="axes" stroke="#999" fill="#444">`];
  for (const t of y.ticks) {
    const py = sy(t);
    parts.push(`<line x1="${f(b.left)}" y1="${f(py)}" x2="${f(b.left + b.width)}" y2="${f(py)}" stroke="#eee"/>`);
    parts.push(`<text x="${f(b.left - 5)}" y="${f(py + 4)}" text-anchor="end" stroke="none">${esc(fmtTick(t))}</text>`);
  }
  for (const t of x.ticks) {
    const px = sx(t);
    parts.push(`<line x1="${f(px)}" y1="${f(bottom)}" x2="${f(px)}" y2="${f(bottom + 4)}"/>`);
    parts.push(`<text x="${f(px)}" y="${f(bottom + 15)}" text-anchor="middle" stroke="none">${esc(fmtTick(t))}</text>`);
  }
  parts.push(`<line x1="${f(b.left)}" y1="${f(bottom)}" x2="${f(b.left + b.width)}" y2="${f(bottom)}"/>`);
  parts.push(`<line x1="${f(b.left)}" y1="${f(b.top)}" x2="${f(b.left)}" y2="${f(bottom)}"/>`);
  parts.push(
    `<text x="${f(b.left + b.width / 2)}" y="${f(bottom + 30)}" text-anchor="middle" stroke="none">${esc(x.label)}</text>`,
  );
  parts.push(
    `<text transform="translate(${f(b.left - 38)} ${f(b.top + b.height / 2)}) rotate(-90)" text-anchor="middle" stroke="none">${esc(y.label)}</text>`,
  );
  parts.push('</g>');
  return parts.join('');
}

/** White → dark blue as the share goes 0 → 1. */
function shade(t: number): string {
  const u = Math.max(0, Math.min(1, fin(t) ? t : 0));
  const mix = (a: number, b: number): number => Math.round(a + (b - a) * u);
  return `rgb(${mix(247, 8)},${mix(251, 48)},${mix(255, 107)})`;
}

/** Confusion heatmap: rows target, columns predicted; shade = count / row total; counts printed. */
export function confusionHeatmap(
  labels: string[],
  matrix: number[][],
  title = 'Confusion matrix (rows: target, columns: predicted)',
): string {
  const id = 'plot-confusion';
  const k = labels.length;
  if (k === 0) return emptyPlot(id, title, 'no cases');
  const cell = Math.max(16, Math.min(44, Math.floor(560 / k)));
  const shown = labels.map((l) => clip(l, 24));
  const longest = Math.max(...shown.map((s) => textW(s)));
  const rotate = longest > cell - 4; // long column labels slant instead of overlapping
  const left = 24 + longest + 8;
  const top = 24 + (rotate ? longest * Math.SQRT1_2 + 10 : 18);
  const w = left + k * cell + 10 + (rotate ? longest * Math.SQRT1_2 : 0);
  const h = top + k * cell + 10;
  const parts = [open(id, title, w, h)];
  parts.push(`<text x="${f(left + (k * cell) / 2)}" y="14" text-anchor="middle" font-weight="bold">predicted</text>`);
  parts.push(
    `<text transform="translate(12 ${f(top + (k * cell) / 2)}) rotate(-90)" text-anchor="middle" font-weight="bold">target</text>`,
  );
  shown.forEach((s, j) => {
    const cx = left + j * cell + cell / 2;
    parts.push(
      rotate
        ? `<text class="col-label" transform="translate(${f(cx)} ${f(top - 6)}) rotate(-45)">${esc(s)}<title>${esc(labels[j] ?? '')}</title></text>`
        : `<text class="col-label" x="${f(cx)}" y="${f(top - 6)}" text-anchor="middle">${esc(s)}<title>${esc(labels[j] ?? '')}</title></text>`,
    );
  });
  shown.forEach((s, i) => {
    parts.push(
      `<text class="row-label" x="${f(left - 6)}" y="${f(top + i * cell + cell / 2 + 4)}" text-anchor="end">${esc(s)}<title>${esc(labels[i] ?? '')}</title></text>`,
    );
  });
  for (let i = 0; i < k; i++) {
    const row = labels.map((_, j) => matrix[i]?.[j] ?? 0).map((c) => (fin(c) ? c : 0));
    const total = row.reduce((a, b) => a + b, 0);
    row.forEach((count, j) => {
      const share = total > 0 ? count / total : 0;
      const x = left + j * cell;
      const y = top + i * cell;
      const tip = `${labels[i] ?? ''} → ${labels[j] ?? ''}: ${count} (${Math.round(share * 100)} % of row)`;
      parts.push(
        `<rect class="cell" x="${f(x)}" y="${f(y)}" width="${cell}" height="${cell}" fill="${shade(share)}" stroke="#fff"><title>${esc(tip)}</title></rect>`,
      );
      parts.push(
        `<text class="count" x="${f(x + cell / 2)}" y="${f(y + cell / 2 + 4)}" text-anchor="middle" fill="${share > 0.55 ? '#fff' : '#222'}">${count}</text>`,
      );
    });
  }
  parts.push('</svg>');
  return parts.join('');
}

export interface BarSeries {
  label: string;
  rows: { key: string; value: number | null }[];
}

/** Horizontal bars of a rate in [0, 1], one group per key, one bar (colour) per series. */
export function groupedBars(id: string, title: string, series: BarSeries[], valueLabel: string): string {
  const keys = [...new Set(series.flatMap((s) => s.rows.map((r) => r.key)))];
  if (keys.length === 0) return emptyPlot(id, title, 'no data');
  const barH = 12;
  const groupH = series.length * barH + 10;
  const shown = keys.map((k) => clip(k, 32));
  const left = Math.max(...shown.map((s) => textW(s))) + 16;
  const plotW = 360;
  const top = 32;
  const b: Box = { left, top, width: plotW, height: keys.length * groupH };
  const x = { lo: 0, hi: 1, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], label: valueLabel };
  const parts = [open(id, title, left + plotW + 50, top + b.height + 40)];
  parts.push(
    legend(
      series.map((s) => s.label),
      left,
      14,
    ),
  );
  parts.push(axes(x, { lo: 0, hi: 1, ticks: [], label: '' }, b));
  keys.forEach((key, g) => {
    const gy = top + g * groupH + 5;
    parts.push(
      `<text class="key" x="${f(left - 6)}" y="${f(gy + (series.length * barH) / 2 + 4)}" text-anchor="end">${esc(shown[g] ?? '')}<title>${esc(key)}</title></text>`,
    );
    series.forEach((s, i) => {
      const v = s.rows.find((r) => r.key === key)?.value;
      const y = gy + i * barH;
      if (!fin(v)) {
        parts.push(`<text x="${f(left + 4)}" y="${f(y + barH - 2)}" fill="#999">—</text>`);
        return;
      }
      const bw = Math.max(0, Math.min(1, v)) * plotW;
      parts.push(
        `<rect class="bar" x="${f(left)}" y="${f(y)}" width="${f(bw)}" height="${barH - 1}" fill="${colour(i)}"><title>${esc(`${s.label} · ${key}: ${v.toFixed(3)}`)}</title></rect>`,
      );
      parts.push(`<text x="${f(left + bw + 3)}" y="${f(y + barH - 2)}" font-size="9">${v.toFixed(2)}</text>`);
    });
  });
  parts.push('</svg>');
  return parts.join('');
}

/** Latency histogram: shared bins over all endpoints, bars side by side within a bin. */
export function latencyHistogram(series: { label: string; values: number[] }[], binCount = 20): string {
  const bins = Math.max(1, Math.floor(fin(binCount) ? binCount : 20));
  const id = 'plot-latency';
  const title = 'Latency per request (ms)';
  const clean = series.map((s) => ({ label: s.label, values: s.values.filter((v) => fin(v) && v >= 0) }));
  const all = clean.flatMap((s) => s.values);
  if (all.length === 0) return emptyPlot(id, title, 'no latency measurements');
  const [lo, max] = extent(all);
  const hi = max > lo ? max : lo + 1;
  const width = (hi - lo) / bins;
  const counts = clean.map((s) => {
    const c = new Array<number>(bins).fill(0);
    for (const v of s.values) {
      const i = Math.min(bins - 1, Math.floor((v - lo) / width));
      c[i] = (c[i] ?? 0) + 1;
    }
    return c;
  });
  const maxC = Math.max(1, extent(counts.flat())[1]);
  const nice = niceDomain(0, maxC, 4);
  const yd = { ...nice, ticks: nice.ticks.filter(Number.isInteger) }; // counts: no 0.5 ticks
  const xTicks = niceDomain(lo, hi, 6).ticks.filter((t) => t >= lo && t <= hi);
  const b: Box = { left: 56, top: 32, width: 520, height: 200 };
  const x: Axis = { lo, hi, ticks: xTicks, label: 'latency (ms)' };
  const y: Axis = { ...yd, label: 'requests' };
  const sx = scale(x, b.left, b.left + b.width);
  const sy = scale(y, b.top + b.height, b.top);
  const parts = [
    open(id, title, b.left + b.width + 20, b.top + b.height + 44),
    legend(
      clean.map((s) => s.label),
      b.left,
      14,
    ),
    axes(x, y, b),
  ];
  const binPx = b.width / bins;
  const subW = binPx / Math.max(1, clean.length);
  counts.forEach((c, si) => {
    c.forEach((n, bi) => {
      if (n === 0) return;
      const bx = sx(lo + bi * width) + si * subW;
      const range = `${fmtTick(lo + bi * width)}–${fmtTick(lo + (bi + 1) * width)} ms`;
      parts.push(
        `<rect class="bar" x="${f(bx)}" y="${f(sy(n))}" width="${f(Math.max(0.5, subW - 1))}" height="${f(sy(0) - sy(n))}" fill="${colour(si)}"><title>${esc(`${clean[si]?.label ?? ''}: ${n} in ${range}`)}</title></rect>`,
      );
    });
  });
  parts.push('</svg>');
  return parts.join('');
}

/** Training loss and eval loss against step; '' when the curve has no finite points. */
export function lossCurve(points: LossPoint[]): string {
  const train = points.flatMap((p) => (fin(p.step) && fin(p.loss) ? [[p.step, p.loss] as const] : []));
  const evals = points.flatMap((p) => (fin(p.step) && fin(p.evalLoss) ? [[p.step, p.evalLoss] as const] : []));
  const all = [...train, ...evals];
  if (all.length === 0) return '';
  const xd = niceDomain(...extent(all.map((p) => p[0])), 6);
  const yd = niceDomain(...extent(all.map((p) => p[1])), 5);
  const b: Box = { left: 56, top: 32, width: 520, height: 220 };
  const x: Axis = { ...xd, label: 'step' };
  const y: Axis = { ...yd, label: 'loss' };
  const sx = scale(x, b.left, b.left + b.width);
  const sy = scale(y, b.top + b.height, b.top);
  const pts = (ps: (readonly [number, number])[]): string => ps.map(([s, l]) => `${f(sx(s))},${f(sy(l))}`).join(' ');
  const names = [...(train.length ? ['train loss'] : []), ...(evals.length ? ['eval loss'] : [])];
  const colourOf = (i: number): string => colour(names[i] === 'eval loss' ? 1 : 0);
  const parts = [
    open('plot-loss', 'Training loss', b.left + b.width + 20, b.top + b.height + 44),
    legend(names, b.left, 14, colourOf),
    axes(x, y, b),
  ];
  if (train.length)
    parts.push(
      `<polyline class="loss-train" fill="none" stroke="${colour(0)}" stroke-width="1.5" points="${pts(train)}"/>`,
    );
  if (evals.length) {
    parts.push(
      `<polyline class="loss-eval" fill="none" stroke="${colour(1)}" stroke-width="1.5" stroke-dasharray="4 3" points="${pts(evals)}"/>`,
    );
    // Eval points are sparse: mark each one.
    for (const [s, l] of evals) parts.push(`<circle cx="${f(sx(s))}" cy="${f(sy(l))}" r="2.5" fill="${colour(1)}"/>`);
  }
  parts.push('</svg>');
  return parts.join('');
}

/**
 * Reliability diagram: each non-empty confidence bin's accuracy (a bar over the bin, its count above it) against the
 * diagonal a calibrated model would sit on; a dashed line at the escalation threshold when there is one.
 */
export function reliabilityDiagram(bins: readonly ReliabilityBin[], threshold: number | null): string {
  const filled = bins.filter((b) => b.count > 0);
  if (filled.length === 0) return emptyPlot('plot-reliability', 'Reliability', 'no decision carried a confidence');
  const b: Box = { left: 56, top: 32, width: 320, height: 220 };
  const x: Axis = { lo: 0, hi: 1, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], label: 'confidence' };
  const y: Axis = { lo: 0, hi: 1, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], label: 'exact match' };
  const sx = scale(x, b.left, b.left + b.width);
  const sy = scale(y, b.top + b.height, b.top);
  const parts = [
    open(
      'plot-reliability',
      'Reliability: confidence against exact match',
      b.left + b.width + 20,
      b.top + b.height + 44,
    ),
    legend(['accuracy per bin', 'calibrated'], b.left, 14, (i) => (i === 0 ? colour(0) : '#999')),
    axes(x, y, b),
    `<line class="diagonal" x1="${f(sx(0))}" y1="${f(sy(0))}" x2="${f(sx(1))}" y2="${f(sy(1))}" stroke="#999" stroke-dasharray="3 3"/>`,
  ];
  for (const bin of filled) {
    const x0 = sx(bin.lo) + 1;
    const top = sy(bin.accuracy!);
    parts.push(
      `<rect class="bin" x="${f(x0)}" y="${f(top)}" width="${f(sx(bin.hi) - x0 - 1)}" height="${f(sy(0) - top)}" fill="${colour(0)}" fill-opacity="0.75"><title>${esc(`${bin.lo.toFixed(2)}–${bin.hi.toFixed(2)}: ${bin.count} decisions, accuracy ${bin.accuracy!.toFixed(3)}, mean confidence ${bin.meanConfidence!.toFixed(3)}`)}</title></rect>`,
      `<text x="${f((sx(bin.lo) + sx(bin.hi)) / 2)}" y="${f(top - 3)}" text-anchor="middle" fill="#444">${bin.count}</text>`,
    );
  }
  if (threshold !== null)
    parts.push(
      `<line class="threshold" x1="${f(sx(threshold))}" y1="${f(b.top)}" x2="${f(sx(threshold))}" y2="${f(sy(0))}" stroke="${colour(1)}" stroke-width="1.5" stroke-dasharray="5 3"/>`,
      `<text x="${f(sx(threshold) + 4)}" y="${f(b.top + 10)}" fill="${colour(1)}">escalate below ${esc(String(threshold))}</text>`,
    );
  parts.push('</svg>');
  return parts.join('');
}

/**
 * Shares (0–1) over steps, one line per series, each point marked; a null value breaks its line there. For
 * figures that move together over a few steps, such as the flywheel's turns.
 */
export function shareLines(
  id: string,
  title: string,
  series: ReadonlyArray<{ label: string; values: ReadonlyArray<number | null> }>,
  xLabel: string,
): string {
  const steps = series.reduce((n, s) => Math.max(n, s.values.length), 0);
  if (steps === 0) return emptyPlot(id, title, 'nothing measured');
  const b: Box = { left: 56, top: 32, width: 420, height: 200 };
  const x: Axis = {
    lo: 0,
    hi: Math.max(1, steps - 1),
    ticks: Array.from({ length: steps }, (_, i) => i),
    label: xLabel,
  };
  const y: Axis = { lo: 0, hi: 1, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], label: 'share' };
  const sx = scale(x, b.left, b.left + b.width);
  const sy = scale(y, b.top + b.height, b.top);
  const parts = [
    open(id, title, b.left + b.width + 20, b.top + b.height + 44),
    legend(
      series.map((s) => s.label),
      b.left,
      14,
    ),
    axes(x, y, b),
  ];
  series.forEach((s, i) => {
    let run: string[] = [];
    const flush = () => {
      if (run.length > 1)
        parts.push(`<polyline fill="none" stroke="${colour(i)}" stroke-width="1.5" points="${run.join(' ')}"/>`);
      run = [];
    };
    s.values.forEach((v, step) => {
      if (!fin(v)) return flush();
      const p = [sx(step), sy(Math.max(0, Math.min(1, v)))] as const;
      run.push(`${f(p[0])},${f(p[1])}`);
      parts.push(`<circle cx="${f(p[0])}" cy="${f(p[1])}" r="2.5" fill="${colour(i)}"/>`);
    });
    flush();
  });
  parts.push('</svg>');
  return parts.join('');
}
