// The balance chart: an inline SVG step line of an account's balanceHistory points (the
// balance holds from one point until the next).
import { h } from './dom.js';

const W = 860, H = 240, L = 130, R = 16, T = 14, B = 30;

// balanceChart draws the points ({blockHeight, balance, changedAtHeight}); fmt renders an
// amount of micro-STX for the points' titles. The vertical axis spans the balances drawn, so
// that small changes of a large balance show.
export function balanceChart(points, fmt) {
  if (!points.length) return h('p', { class: 'muted' }, 'No balance history yet.');
  const xs = points.map((p) => p.blockHeight);
  const ys = points.map((p) => Number(BigInt(p.balance)) / 1e6);
  const x0 = xs[0], x1 = Math.max(xs[xs.length - 1], x0 + 1);
  let yMax = Math.max(...ys), yMin = Math.min(...ys);
  if (yMax === yMin) [yMin, yMax] = [Math.max(0, yMin - 1), yMax + 1];
  const span = yMax - yMin;
  // Enough decimals on the axis to tell its three ticks apart.
  const decimals = Math.min(6, Math.max(0, Math.ceil(-Math.log10(span / 2)) + 1));
  const label = (v) => v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals }) + ' STX';
  const x = (v) => L + ((v - x0) / (x1 - x0)) * (W - L - R);
  const y = (v) => T + (1 - (v - yMin) / span) * (H - T - B);
  let d = `M${x(xs[0]).toFixed(1)},${y(ys[0]).toFixed(1)}`;
  for (let i = 1; i < xs.length; i++) d += `H${x(xs[i]).toFixed(1)}V${y(ys[i]).toFixed(1)}`;
  const area = `${d}V${y(yMin).toFixed(1)}H${x(xs[0]).toFixed(1)}Z`;
  const ticks = [yMin, yMin + span / 2, yMax];
  return h('svg:svg', { class: 'chart', id: 'balance-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'STX balance by block height' },
    ticks.map((v) => [
      h('svg:line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }),
      h('svg:text', { x: L - 8, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, label(v)),
    ]),
    h('svg:text', { x: L, y: H - 8, class: 'axis' }, 'block ' + xs[0]),
    h('svg:text', { x: W - R, y: H - 8, 'text-anchor': 'end', class: 'axis' }, 'block ' + xs[xs.length - 1]),
    h('svg:path', { d: area, class: 'area' }),
    h('svg:path', { d, class: 'line' }),
    points.map((p, i) => h('svg:circle', {
      cx: x(xs[i]).toFixed(1), cy: y(ys[i]).toFixed(1), r: p.changedAtHeight === p.blockHeight ? 3.5 : 1.5,
      class: p.changedAtHeight === p.blockHeight ? 'point change' : 'point',
      'data-height': p.blockHeight, 'data-balance': p.balance,
    }, h('svg:title', null, `block ${p.blockHeight}: ${fmt(p.balance)}`))));
}
