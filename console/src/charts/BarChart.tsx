/**
 * A bar chart drawn by Chart.js (only the parts a bar chart needs, so the Usage page's chunk stays
 * small), with the same figures in a table beneath it for screen readers, keyboards and tests.
 */
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useId, useRef } from 'react';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

export interface BarChartProps {
  title: string;
  labels: string[];
  values: number[];
  /** How a value reads in the table and the tooltip. */
  format: (value: number) => string;
  valueLabel: string;
  empty?: string;
}

export function BarChart(props: BarChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart<'bar'>>(undefined);
  const headingId = useId();
  const { labels, values, format } = props;

  useEffect(() => {
    if (!canvas.current) return;
    const color = getComputedStyle(canvas.current).getPropertyValue('--chart-bar').trim() || '#2563eb';
    const grid = getComputedStyle(canvas.current).getPropertyValue('--chart-grid').trim() || '#e5e7eb';
    chart.current = new Chart(canvas.current, {
      type: 'bar',
      data: { labels: [], datasets: [{ label: props.valueLabel, data: [], backgroundColor: color, borderRadius: 3, maxBarThickness: 48 }] },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: { tooltip: { callbacks: { label: (ctx) => `${props.valueLabel}: ${format(Number(ctx.parsed.y))}` } } },
        scales: {
          // Several labelled ticks (up to 12, evenly skipped), never one: 25 hours read as a day.
          x: { grid: { display: false }, ticks: { autoSkip: true, autoSkipPadding: 8, maxTicksLimit: 12, maxRotation: 0 } },
          y: { beginAtZero: true, grid: { color: grid }, ticks: { callback: (v) => format(Number(v)) } },
        },
      },
    });
    return () => chart.current?.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    c.data.labels = labels;
    (c.data.datasets[0] as { data: number[] }).data = values;
    c.update();
  }, [labels, values]);

  const total = values.reduce((a, b) => a + b, 0);
  return (
    <figure className="chart" aria-labelledby={headingId}>
      <figcaption id={headingId}>{props.title}</figcaption>
      {labels.length === 0 ? <p className="hint">{props.empty ?? 'Nothing to show yet.'}</p> : null}
      <div className={`chart-canvas${labels.length === 0 ? ' hidden' : ''}`}>
        <canvas
          ref={canvas}
          role="img"
          aria-label={`${props.title}: ${labels.length} bars, total ${format(total)}. The figures are in the table below.`}
        />
      </div>
      {labels.length > 0 ? (
        <details>
          <summary>Figures of “{props.title}”</summary>
          <table className="figures-table" aria-label={props.title}>
            <thead>
              <tr>
                <th scope="col">{props.title.split(' ')[1] === 'hour' ? 'Hour' : 'Name'}</th>
                <th scope="col">{props.valueLabel}</th>
              </tr>
            </thead>
            <tbody>
              {labels.map((label, i) => (
                <tr key={`${label}-${i}`}>
                  <th scope="row">{label}</th>
                  <td>{format(values[i] ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ) : null}
    </figure>
  );
}
