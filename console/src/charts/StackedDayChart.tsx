/**
 * Spend by day, one stacked bar a day, one colour a group: plain SVG (no canvas), so the axes are
 * text a screen reader and a test can read. The x axis labels several days (about eight, evenly
 * spaced, the first and the last always), the y axis four even steps from zero.
 */
import { useId } from 'react';

export interface DaySeries {
  name: string;
  /** Figures by day (yyyy-mm-dd). */
  byDay: Map<string, number>;
}

export interface StackedDayChartProps {
  title: string;
  /** Every day of the range, oldest first (yyyy-mm-dd). */
  days: string[];
  series: DaySeries[];
  format: (value: number) => string;
  empty?: string;
}

const PALETTE = ['#2563eb', '#16a34a', '#d97706', '#dc2626', '#7c3aed', '#0891b2', '#64748b'];
const WIDTH = 720;
const HEIGHT = 260;
const PAD = { left: 72, right: 12, top: 12, bottom: 36 };
const X_TICKS = 8;
const Y_STEPS = 4;

/** Indexes of the labelled days: evenly spaced, the first and the last always. */
function tickIndexes(count: number, wanted = X_TICKS): number[] {
  if (count <= wanted) return Array.from({ length: count }, (_, i) => i);
  const step = (count - 1) / (wanted - 1);
  return [...new Set(Array.from({ length: wanted }, (_, i) => Math.round(i * step)))];
}

const dayLabel = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

export function StackedDayChart(props: StackedDayChartProps) {
  const headingId = useId();
  const { days, series, format } = props;
  const totals = days.map((d) => series.reduce((n, s) => n + (s.byDay.get(d) ?? 0), 0));
  const max = Math.max(0, ...totals);
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const slot = innerW / Math.max(1, days.length);
  const barW = Math.max(2, Math.min(40, slot * 0.7));
  const y = (v: number) => PAD.top + innerH - (max > 0 ? (v / max) * innerH : 0);

  return (
    <figure className="chart stacked-chart" aria-labelledby={headingId}>
      <figcaption id={headingId}>{props.title}</figcaption>
      {max === 0 ? (
        <p className="hint">{props.empty ?? 'Nothing to show yet.'}</p>
      ) : (
        <>
          <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${props.title}: ${days.length} days, ${series.length} groups`}>
            <g className="y-axis">
              {Array.from({ length: Y_STEPS + 1 }, (_, i) => (max * i) / Y_STEPS).map((v) => (
                <g key={v}>
                  <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(v)} y2={y(v)} className="grid" />
                  <text x={PAD.left - 6} y={y(v)} dy="0.32em" textAnchor="end" className="tick">
                    {format(v)}
                  </text>
                </g>
              ))}
            </g>
            {days.map((day, i) => {
              let base = 0;
              const x = PAD.left + slot * i + (slot - barW) / 2;
              return (
                <g key={day}>
                  {series.map((s, k) => {
                    const v = s.byDay.get(day) ?? 0;
                    if (v <= 0) return null;
                    const top = y(base + v);
                    const rect = (
                      <rect key={s.name} x={x} y={top} width={barW} height={y(base) - top} fill={PALETTE[k % PALETTE.length]}>
                        <title>{`${dayLabel(day)}, ${s.name}: ${format(v)}`}</title>
                      </rect>
                    );
                    base += v;
                    return rect;
                  })}
                </g>
              );
            })}
            <g className="x-axis">
              <line x1={PAD.left} x2={WIDTH - PAD.right} y1={PAD.top + innerH} y2={PAD.top + innerH} className="axis" />
              {tickIndexes(days.length).map((i) => (
                <text key={days[i]} x={PAD.left + slot * i + slot / 2} y={HEIGHT - PAD.bottom + 18} textAnchor="middle" className="tick">
                  {dayLabel(days[i] as string)}
                </text>
              ))}
            </g>
          </svg>
          <ul className="legend">
            {series.map((s, k) => (
              <li key={s.name}>
                <span className="swatch" style={{ background: PALETTE[k % PALETTE.length] }} aria-hidden="true" />
                {s.name}
              </li>
            ))}
          </ul>
        </>
      )}
    </figure>
  );
}
