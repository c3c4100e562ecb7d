// dgxhost HTML report: draws the charts that html_charts.cpp described in #dgx-charts with Chart.js (embedded
// in the page at build time: no network). With #selftest in the URL it records, in #dgx-selftest, how many charts
// were drawn, whether each canvas holds drawn pixels, each chart's datasets (label, points, data), the labels of its
// axes, its reference lines and limits (drawn or not), its layout (canvas, plot area, labels drawn) and every error:
// the headless-browser test reads it.
(function () {
  'use strict';
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf',
                   '#7f7f7f', '#bcbd22'];
  const verdictColors = { pass: '#2ca02c', fail: '#d62728', regression: '#d62728', improvement: '#2ca02c' };

  // A tick value as people write it, three significant digits at most: 0.05, 20, 512, 12k, 4.5M; dollars as "$2M".
  function readable(v, unit) {
    const a = Math.abs(v), short = function (x) { return String(parseFloat(x.toPrecision(3))); };
    const scaled = a >= 1e12 ? short(v / 1e12) + 'T' : a >= 1e9 ? short(v / 1e9) + 'B' : a >= 1e6 ? short(v / 1e6) + 'M'
                 : a >= 1e4 ? short(v / 1e3) + 'k' : String(parseFloat(v.toPrecision(4)));
    return unit === 'USD' ? '$' + scaled : scaled;
  }

  // The first digit of a positive value: 2 for 200, 5 for 0.05.
  function leadingDigit(v) { return Math.round(v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9))); }

  // Log axes: Chart.js 3 makes a tick per 1..9 of each decade, labels a few and then skips crowded ones, which left
  // only the decades (10, 100). Keep the ticks at the values the chart names (ticks_at: the data's own x, such as GPU
  // counts), else 1, 2 and 5 of each decade (every one on an axis spanning less than a decade), and label each.
  function logAxis(a, spec) {
    a.afterBuildTicks = function (scale) {
      const inside = function (v) { return v >= scale.min * (1 - 1e-9) && v <= scale.max * (1 + 1e-9); };
      if (spec.ticks_at && spec.ticks_at.filter(inside).length >= 2) {
        scale.ticks = spec.ticks_at.filter(inside).map(function (v) { return { value: v }; });
        return;
      }
      const narrow = scale.max / scale.min < 10;
      scale.ticks = scale.ticks.filter(function (t) {
        const d = t.value > 0 ? leadingDigit(t.value) : 0;
        return narrow || d === 1 || d === 2 || d === 5 || d === 10;
      });
    };
    a.ticks = { callback: function (v) { return readable(v, spec.unit); } };
    // An axis at the data's own values spans them (Chart.js would start it at the decade below: 100 for 512 GPUs).
    if (spec.ticks_at && spec.ticks_at.length >= 2) {
      a.min = spec.ticks_at[0] / 1.25;
      a.max = spec.ticks_at[spec.ticks_at.length - 1] * 1.25;
    }
  }

  function axis(spec, fallbackType) {
    const a = { type: spec.log ? 'logarithmic' : fallbackType, title: { display: true, text: spec.title } };
    if (spec.begin_at_zero) a.beginAtZero = true;
    // Milliseconds since the epoch, labelled as UTC dates (no date adapter is embedded).
    if (spec.time) a.ticks = { callback: function (v) { return new Date(v).toISOString().slice(0, 10); } };
    if (spec.log) logAxis(a, spec);
    else if (spec.unit === 'USD') a.ticks = { callback: function (v) { return readable(v, spec.unit); } };
    return a;
  }

  function xyConfig(c) {
    const datasets = c.series.map(function (s, i) {
      const color = s.color || palette[i % palette.length];
      return {
        label: s.label, data: s.points.map(function (p) { return { x: p[0], y: p[1] }; }),
        showLine: !!s.line, borderColor: color, backgroundColor: color, borderDash: s.dashed ? [6, 4] : [],
        pointRadius: s.size === undefined ? 3 : s.size, pointStyle: s.marker || 'circle', borderWidth: s.line ? 2 : 1
      };
    });
    return { type: 'scatter', data: { datasets: datasets },
             options: { scales: { x: axis(c.x, 'linear'), y: axis(c.y, 'linear') } } };
  }

  function barConfig(c) {
    const datasets = c.bars.map(function (b, i) {
      const colors = b.verdicts ? b.verdicts.map(function (v) { return verdictColors[v] || '#8c959f'; })
                                : b.color || palette[i % palette.length];
      return { type: 'bar', label: b.label, data: b.values, backgroundColor: colors, borderColor: colors };
    });
    // Horizontal (long labels, html_charts.cpp): the categories down the side, every one drawn, the values across.
    const labels = { title: { display: true, text: c.x.title }, ticks: { autoSkip: !c.horizontal } };
    const scales = c.horizontal ? { y: labels, x: axis(c.y, 'linear') } : { x: labels, y: axis(c.y, 'linear') };
    return { type: 'bar', data: { labels: c.categories, datasets: datasets },
             options: { indexAxis: c.horizontal ? 'y' : 'x', scales: scales } };
  }

  function valueScale(chart) { return chart.options.indexAxis === 'y' ? chart.scales.x : chart.scales.y; }

  // One dashed line across the plot area at `value` of `scale` (across a horizontal scale: vertical), labelled at
  // its end; false when the value lies outside the plot.
  function referenceLine(chart, scale, value, label, color) {
    const p = scale.getPixelForValue(value), area = chart.chartArea, ctx = chart.ctx, vertical = scale.isHorizontal();
    if (!isFinite(p) || (vertical ? p < area.left - 1 || p > area.right + 1 : p < area.top - 1 || p > area.bottom + 1))
      return false;
    ctx.save();
    ctx.strokeStyle = color;
    ctx.lineWidth = 1.5;
    ctx.setLineDash([6, 4]);
    ctx.beginPath();
    ctx.moveTo(vertical ? p : area.left, vertical ? area.top : p);
    ctx.lineTo(vertical ? p : area.right, vertical ? area.bottom : p);
    ctx.stroke();
    ctx.setLineDash([]);
    // The label above a horizontal line at its right end, beside a vertical one at its foot (clear of the other's).
    ctx.font = '11px sans-serif';
    ctx.textAlign = 'right';
    const x = vertical ? p - 4 : area.right - 4, y = vertical ? area.bottom - 6 : p - 4;
    ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
    ctx.fillRect(x - ctx.measureText(label).width - 2, y - 10, ctx.measureText(label).width + 4, 13);
    ctx.fillStyle = color;
    ctx.fillText(label, x, y);
    ctx.restore();
    return true;
  }

  // Reference lines (a threshold, a link's peak) on the value axis; limits the run set (a budget, a deadline,
  // html_charts.cpp) on the axis they bound, in red. Which were drawn is kept for the self-test.
  const hlines = {
    id: 'dgxHlines',
    afterDatasetsDraw: function (chart, args, options) {
      chart.dgxLines = [];
      (options.lines || []).forEach(function (h) {
        chart.dgxLines.push({ label: h.label, drawn: referenceLine(chart, valueScale(chart), h.y, h.label, '#444') });
      });
      (options.limits || []).forEach(function (l) {
        const scale = l.axis === 'x' ? chart.scales.x : valueScale(chart);
        chart.dgxLines.push({ label: l.label, limit: true,
                              drawn: referenceLine(chart, scale, l.value, l.label, '#b00020') });
      });
    }
  };

  // Stretches an axis to reach `value` (with a margin), so that a limit beyond the data is still drawn.
  function reach(scale, value) {
    scale.suggestedMin = Math.min(scale.suggestedMin === undefined ? value : scale.suggestedMin, value * 0.95);
    scale.suggestedMax = Math.max(scale.suggestedMax === undefined ? value : scale.suggestedMax, value * 1.05);
  }

  function draw(c, canvas) {
    const config = c.kind === 'bar' ? barConfig(c) : xyConfig(c);
    config.options.animation = false;
    config.options.responsive = false;
    config.options.plugins = { title: { display: true, text: c.title, font: { size: 14 } },
                               legend: { display: true, position: 'bottom' },
                               dgxHlines: { lines: c.hlines || [], limits: c.limits || [] } };
    const scales = config.options.scales, values = c.horizontal ? scales.x : scales.y;
    // Keep every reference line inside the plot: the value axis reaches it.
    (c.hlines || []).forEach(function (h) {
      values.suggestedMax = Math.max(values.suggestedMax === undefined ? h.y : values.suggestedMax, h.y * 1.05);
    });
    (c.limits || []).forEach(function (l) { reach(l.axis === 'x' ? scales.x : values, l.value); });
    config.plugins = [hlines];
    return new window.Chart(canvas.getContext('2d'), config);
  }

  function drawnPixels(canvas) {
    const ctx = canvas.getContext('2d');
    const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
    return n;
  }

  function main() {
    // datasets: what each chart drew, label and point count per dataset, so a test can check the series.
    const result = { charts: 0, drawn: 0, blank: [], errors: window.dgxErrors || [], datasets: [], layout: [] };
    const specs = JSON.parse(document.getElementById('dgx-charts').textContent);
    if (specs.length > 0 && typeof window.Chart === 'undefined') {
      result.errors.push('Chart.js is not in this page');
    } else {
      specs.forEach(function (c) {
        const canvas = document.getElementById(c.id);
        result.charts++;
        try {
          const chart = draw(c, canvas);
          // The labels each axis drew (after Chart.js skipped crowded ones) and the reference lines and limits,
          // each with whether it lies inside the plot.
          const axes = {};
          Object.keys(chart.scales).forEach(function (id) {
            const scale = chart.scales[id];
            axes[id] = { type: scale.type, labels: scale.ticks.map(function (t) { return String(t.label); })
                                                              .filter(function (l) { return l !== ''; }) };
          });
          result.datasets.push({ title: c.title, series: chart.data.datasets.map(function (d) {
            return { label: d.label, points: d.data.length,
                     data: d.data.map(function (p) { return typeof p === 'object' && p !== null ? [p.x, p.y] : p; }) };
          }), axes: axes, lines: chart.dgxLines || [] });
          // The layout, so a test can tell a readable chart from one squeezed into a corner: the canvas, the plot
          // area, the most lines of one label, and how many of the categories got a label drawn.
          const labelAxis = chart.options.indexAxis === 'y' ? chart.scales.y : chart.scales.x;
          result.layout.push({ id: c.id, kind: c.kind, horizontal: !!c.horizontal, width: canvas.width,
                               height: canvas.height, plot_width: chart.chartArea.width,
                               plot_height: chart.chartArea.height, categories: (c.categories || []).length,
                               lines: (c.categories || []).reduce(function (n, l) {
                                 return Math.max(n, Array.isArray(l) ? l.length : 1);
                               }, 1),
                               labels: c.kind === 'bar' ? labelAxis.ticks.length : 0 });
          const points = (c.series || c.bars || []).reduce(function (n, s) {
            return n + (s.points || s.values || []).length;
          }, 0);
          if (points > 0 && drawnPixels(canvas) > 0) result.drawn++; else result.blank.push(c.id);
        } catch (e) {
          result.errors.push(c.id + ': ' + e);
        }
      });
    }
    if (window.location.hash === '#selftest')
      document.getElementById('dgx-selftest').textContent = JSON.stringify(result);
  }

  main();
})();
