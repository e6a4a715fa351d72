/**
 * The run's chart (chart.svg): one panel per section, horizontal bars (median) with min–max
 * whiskers; ratio panels on a log scale around 1×, absolute ones linear from 0.
 */
import type { CaseResult, Section } from '../lib/results.js';
import { fmt, grid } from './format.js';
import type { Report } from './report.js';
import { byTable, isShipped } from './settings.js';

/** One bar: a case's median with its min–max whisker, under a group (a row) or alone. */
interface Bar {
  group: string;
  label: string;
  median: number;
  min: number;
  max: number;
  failed: boolean;
}

/** One panel of the chart: a title, a unit and its bars. */
interface Panel {
  title: string;
  unit: string;
  bars: Bar[];
  /** Draw a reference line at this value (1 for ratios). */
  reference?: number;
}

/** Text escaped for SVG. */
function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Bars of a section, each value divided by the same row's value of `baseCol` (when given). */
function barsOf(cases: readonly CaseResult[], baseCol?: string, invert = false): Bar[] {
  const g = grid(cases);
  const bars: Bar[] = [];
  for (const row of g.rows) {
    const base = baseCol ? g.at(row, baseCol)?.summary?.median : undefined;
    for (const col of g.cols) {
      const c = g.at(row, col);
      if (!c) continue;
      const s = c.summary;
      const scale = (v: number) => {
        if (baseCol === undefined) return v;
        if (!base || !v) return 0;
        return invert ? base / v : v / base;
      };
      const lo = s ? scale(invert ? s.max : s.min) : 0;
      const hi = s ? scale(invert ? s.min : s.max) : 0;
      bars.push({ group: row, label: col, median: s ? scale(s.median) : 0, min: lo, max: hi, failed: !s });
    }
  }
  return bars;
}

/** The panels of a report, in the chart's order (one short block per section, kept together so that order reads in one place). */
export function panels(cases: readonly CaseResult[]): Panel[] {
  const out: Panel[] = [];
  const of = (s: Section) => cases.filter((c) => c.section === s);
  const startup = [...of('startup'), ...of('majors')];
  if (startup.length) {
    out.push({
      title: 'Time to the first answered query (s, lower is better)',
      unit: 's',
      bars: startup.map((c) => ({
        group: '',
        label: c.row,
        median: c.summary?.median ?? 0,
        min: c.summary?.min ?? 0,
        max: c.summary?.max ?? 0,
        failed: !c.summary,
      })),
    });
  }
  // Throughput only: the commit-latency row is in the table.
  const workloads = of('workloads').filter((c) => c.metric === 'tps');
  if (workloads.length) {
    const base = workloads[0]?.variant as string;
    out.push({
      title: `Workloads: throughput relative to "${base}" (log scale, higher is better)`,
      unit: '×',
      bars: barsOf(workloads, base),
      reference: 1,
    });
  }
  const sb = of('shared_buffers');
  if (sb.length) {
    const base = sb.find((c) => c.variant.includes('default'))?.variant ?? (sb[0]?.variant as string);
    out.push({
      title: `shared_buffers: throughput relative to ${base} (log scale, higher is better)`,
      unit: '×',
      bars: barsOf(sb, base),
      reference: 1,
    });
  }
  const cp = of('client_path');
  if (cp.length) {
    out.push({ title: 'Client path: select-only latency (ms, lower is better)', unit: 'ms', bars: barsOf(cp) });
  }
  const p18 = of('pg18');
  if (p18.length) {
    const base = p18[0]?.variant as string;
    out.push({
      title: `PostgreSQL 18: speed relative to "${base}" (log scale, higher is better)`,
      unit: '×',
      bars: barsOf(p18, base),
      reference: 1,
    });
  }
  for (const [name, st] of byTable(of('settings'))) {
    const base = st.find(isShipped)?.variant ?? (st[0]?.variant as string);
    out.push({
      title: `Durability profile${name ? ` on ${name}` : ''}: speed relative to "${base}" (log scale, higher is better)`,
      unit: '×',
      bars: [...new Set(st.map((c) => c.row))].flatMap((row) => {
        const rc = st.filter((c) => c.row === row);
        return barsOf(rc, base, rc[0]?.metric !== 'tps').filter((b) => b.label !== base);
      }),
      reference: 1,
    });
  }
  return out;
}

/** Geometry of the chart, px: the width, the label column, where bars start and how wide they may grow, a bar's row. */
const W = { width: 1000, labelW: 470, barX: 480, barW: 1000 - 480 - 90, rowH: 17 };

/**
 * One panel's SVG elements from `startY` down: its title, its ticks (ratio panels), its bars with
 * whiskers and values, and the reference line.
 * Long because it draws one panel's axes, bars and labels from one scale.
 * @returns the elements and the `y` after the panel
 */
function panelSvg(p: Panel, startY: number): { parts: string[]; y: number } {
  const { barX, barW, rowH } = W;
  const parts: string[] = [];
  let y = startY + 26;
  parts.push(`<text x="10" y="${y}" class="h2">${esc(p.title)}</text>`);
  y += 8;
  // Ratio panels (with a reference of 1×) use a log scale with bars growing from 1× to the
  // left (slower) or right (faster); absolute panels a linear scale from 0.
  const ref = p.reference;
  const ok = p.bars.filter((b) => !b.failed && b.min > 0);
  let xOf: (v: number) => number;
  let origin: number;
  if (ref !== undefined && ok.length) {
    const lo = Math.log(Math.min(ref, ...ok.map((b) => b.min)) / 1.15);
    const hi = Math.log(Math.max(ref, ...ok.map((b) => b.max)) * 1.15);
    xOf = (v: number) => barX + ((Math.log(Math.max(v, 1e-9)) - lo) / (hi - lo)) * barW;
    origin = xOf(ref);
    y += 12;
    for (const tick of [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]) {
      const x = xOf(tick);
      if (x < barX - 1 || x > barX + barW + 1) continue;
      parts.push(`<text x="${x.toFixed(1)}" y="${y - 2}" class="t">${tick}×</text>`);
    }
  } else {
    const top = Math.max(...p.bars.map((b) => b.max)) * 1.05 || 1;
    xOf = (v: number) => barX + (Math.max(0, v) / top) * barW;
    origin = barX;
  }
  const panelTop = y;
  let group = '';
  for (const b of p.bars) {
    if (b.group && b.group !== group) {
      group = b.group;
      y += rowH;
      parts.push(`<text x="10" y="${y - 4}" class="g">${esc(group)}</text>`);
    }
    y += rowH;
    const label = b.group ? `    ${b.label}` : b.label;
    parts.push(`<text x="${b.group ? 24 : 10}" y="${y - 4}" class="l">${esc(label.trim()).slice(0, 78)}</text>`);
    if (b.failed) {
      parts.push(`<text x="${barX}" y="${y - 4}" class="f">failed</text>`);
      continue;
    }
    const xm = xOf(b.median);
    const left = Math.min(origin, xm);
    parts.push(
      `<rect x="${left.toFixed(1)}" y="${y - 13}" width="${Math.max(1, Math.abs(xm - origin)).toFixed(1)}" height="11" class="b"/>`,
    );
    if (b.max > b.min) {
      parts.push(`<line x1="${xOf(b.min).toFixed(1)}" x2="${xOf(b.max).toFixed(1)}" y1="${y - 7.5}" y2="${y - 7.5}" class="w"/>`);
    }
    const right = Math.max(xOf(b.max), xm, origin);
    parts.push(
      `<text x="${(right + 4).toFixed(1)}" y="${y - 4}" class="v">${esc(fmt(b.median))}${esc(p.unit === '×' ? '×' : ` ${p.unit}`)}</text>`,
    );
  }
  if (ref !== undefined) {
    const x = origin.toFixed(1);
    parts.push(`<line x1="${x}" x2="${x}" y1="${panelTop}" y2="${y + 2}" class="r"/>`);
  }
  return { parts, y: y + 6 };
}

/** The SVG chart of a report: a heading with the machine, then one panel per section (panels). */
export function svg(report: Report): string {
  const { width } = W;
  const parts: string[] = [];
  let y = 30;
  const m = report.machine;
  parts.push(`<text x="10" y="20" class="h1">pg-tmpfs-action benchmark, ${esc(report.startedAt)}, ${esc(report.command)}</text>`);
  parts.push(
    `<text x="10" y="38" class="l">${esc(`${m.cpuModel}, ${m.cpus} cores, ${m.memoryGiB} GiB RAM; kernel ${m.kernel}; ${m.postgres}; Docker ${m.docker}`)}</text>`,
  );
  y += 12;
  for (const p of panels(report.cases)) {
    const drawn = panelSvg(p, y);
    parts.push(...drawn.parts);
    y = drawn.y;
  }
  const height = y + 20;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif">`,
    '<style>.h1{font-size:13px;font-weight:600}.h2{font-size:14px;font-weight:700}.g{font-size:12px;font-weight:600}.l,.v,.f{font-size:11px}.t{font-size:10px;fill:#666;text-anchor:middle}.f{fill:#b00}.b{fill:#4e79a7}.w{stroke:#222;stroke-width:1.2}.r{stroke:#b00;stroke-dasharray:3 3}</style>',
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
