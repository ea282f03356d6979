/**
 * Chart.js configs of the spend dashboard, built from `GET /spend` data: spend per day stacked by
 * model (bar), requests and tokens per day (line, two axes), top keys (horizontal bar) and top
 * models (doughnut). Pure functions: data in, config out.
 */
import { formatTokens, formatUsd } from '../format.js';

const PALETTE = [
  '#2563eb',
  '#16a34a',
  '#f59e0b',
  '#dc2626',
  '#7c3aed',
  '#0891b2',
  '#db2777',
  '#65a30d',
  '#ea580c',
  '#475569',
];
const DAY_MS = 86_400_000;

/** Colour `i` of the chart palette (cycling). */
export function paletteColor(i) {
  return PALETTE[i % PALETTE.length];
}

/** Every UTC day `YYYY-MM-DD` from `from` to `to` (ISO-8601 or ms), both included. */
export function dayRange(from, to) {
  const days = [];
  const start = Math.floor(new Date(from).getTime() / DAY_MS) * DAY_MS;
  const end = new Date(to).getTime();
  for (let t = start; t <= end && days.length < 400; t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

const BASE_OPTIONS = { responsive: true, maintainAspectRatio: false, animation: false };
const usdTick = { callback: (value) => formatUsd(value) };

/** Stacked bar: one dataset per model, USD per day. `daily`: `[{ day, model, costUsd }]`. */
export function dailySpendConfig(daily, days) {
  const models = [...new Set(daily.map((d) => d.model))].sort();
  const datasets = models.map((model, i) => {
    const byDay = new Map();
    for (const d of daily) if (d.model === model) byDay.set(d.day, (byDay.get(d.day) ?? 0) + Number(d.costUsd));
    return {
      label: model,
      data: days.map((day) => byDay.get(day) ?? 0),
      backgroundColor: paletteColor(i),
      stack: 'cost',
    };
  });
  return {
    type: 'bar',
    data: { labels: days, datasets },
    options: {
      ...BASE_OPTIONS,
      scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: usdTick } },
      plugins: {
        legend: { position: 'bottom' },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${formatUsd(c.parsed.y)}` } },
      },
    },
  };
}

/** Two lines: requests per day (left axis) and tokens in + out per day (right axis). */
export function trafficConfig(daily, days) {
  const requests = new Map();
  const tokens = new Map();
  for (const d of daily) {
    requests.set(d.day, (requests.get(d.day) ?? 0) + Number(d.requests));
    tokens.set(d.day, (tokens.get(d.day) ?? 0) + Number(d.inputTokens) + Number(d.outputTokens));
  }
  return {
    type: 'line',
    data: {
      labels: days,
      datasets: [
        {
          label: 'Requests',
          data: days.map((d) => requests.get(d) ?? 0),
          borderColor: paletteColor(0),
          backgroundColor: paletteColor(0),
          yAxisID: 'requests',
          tension: 0.2,
        },
        {
          label: 'Tokens',
          data: days.map((d) => tokens.get(d) ?? 0),
          borderColor: paletteColor(2),
          backgroundColor: paletteColor(2),
          yAxisID: 'tokens',
          tension: 0.2,
        },
      ],
    },
    options: {
      ...BASE_OPTIONS,
      interaction: { mode: 'index', intersect: false },
      scales: {
        requests: { type: 'linear', position: 'left', beginAtZero: true, title: { display: true, text: 'requests' } },
        tokens: {
          type: 'linear',
          position: 'right',
          beginAtZero: true,
          grid: { drawOnChartArea: false },
          title: { display: true, text: 'tokens' },
          ticks: { callback: (v) => formatTokens(v) },
        },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  };
}

/** Horizontal bar of the keys that spent most. `topKeys`: `[{ keyId, name, costUsd, requests }]`. */
export function topKeysConfig(topKeys) {
  return {
    type: 'bar',
    data: {
      labels: topKeys.map((k) => k.name || k.keyId),
      datasets: [{ label: 'Spend', data: topKeys.map((k) => Number(k.costUsd)), backgroundColor: paletteColor(0) }],
    },
    options: {
      ...BASE_OPTIONS,
      indexAxis: 'y',
      scales: { x: { beginAtZero: true, ticks: usdTick } },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            label: (c) => `${formatUsd(c.parsed.x)} · ${formatTokens(topKeys[c.dataIndex]?.requests)} requests`,
          },
        },
      },
    },
  };
}

/** Doughnut of spend per model. `topModels`: `[{ model, costUsd, requests }]`. */
export function topModelsConfig(topModels) {
  return {
    type: 'doughnut',
    data: {
      labels: topModels.map((m) => m.model),
      datasets: [
        { data: topModels.map((m) => Number(m.costUsd)), backgroundColor: topModels.map((_, i) => paletteColor(i)) },
      ],
    },
    options: {
      ...BASE_OPTIONS,
      plugins: {
        legend: { position: 'right' },
        tooltip: { callbacks: { label: (c) => `${c.label}: ${formatUsd(c.parsed)}` } },
      },
    },
  };
}
