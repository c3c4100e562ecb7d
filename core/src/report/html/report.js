// dgxhost HTML report: draws the charts that html_charts.cpp described in #dgx-charts with Chart.js (embedded
// in the page at build time: no network). With #selftest in the URL it records, in #dgx-selftest, how many charts
// were drawn, whether each canvas holds drawn pixels, each chart's datasets (label, points), its layout (canvas, plot
// area, labels drawn) and every error: the headless-browser test reads it.
(function () {
  'use strict';
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf',
                   '#7f7f7f', '#bcbd22'];
  const verdictColors = { pass: '#2ca02c', fail: '#d62728', regression: '#d62728', improvement: '#2ca02c' };

  function axis(spec, fallbackType) {
    const a = { type: spec.log ? 'logarithmic' : fallbackType, title: { display: true, text: spec.title } };
    if (spec.begin_at_zero) a.beginAtZero = true;
    // Milliseconds since the epoch, labelled as UTC dates (no date adapter is embedded).
    if (spec.time) a.ticks = { callback: function (v) { return new Date(v).toISOString().slice(0, 10); } };
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

  // Reference lines (a threshold, a link's peak) across the whole plot area, labelled at their right end.
  const hlines = {
    id: 'dgxHlines',
    afterDatasetsDraw: function (chart, args, options) {
      const v = valueScale(chart), area = chart.chartArea, ctx = chart.ctx, across = chart.options.indexAxis === 'y';
      (options.lines || []).forEach(function (h) {
        const p = v.getPixelForValue(h.y);
        if (across ? p < area.left || p > area.right : p < area.top || p > area.bottom) return;
        ctx.save();
        ctx.strokeStyle = '#444';
        ctx.lineWidth = 1.5;
        ctx.setLineDash([6, 4]);
        ctx.beginPath();
        ctx.moveTo(across ? p : area.left, across ? area.top : p);
        ctx.lineTo(across ? p : area.right, across ? area.bottom : p);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = '#444';
        ctx.font = '11px sans-serif';
        ctx.textAlign = 'right';
        ctx.fillText(h.label, across ? p - 4 : area.right - 4, across ? area.top + 12 : p - 4);
        ctx.restore();
      });
    }
  };

  function draw(c, canvas) {
    const config = c.kind === 'bar' ? barConfig(c) : xyConfig(c);
    config.options.animation = false;
    config.options.responsive = false;
    config.options.plugins = { title: { display: true, text: c.title, font: { size: 14 } },
                               legend: { display: true, position: 'bottom' },
                               dgxHlines: { lines: c.hlines || [] } };
    // Keep every reference line inside the plot: the value axis reaches it.
    (c.hlines || []).forEach(function (h) {
      const y = c.horizontal ? config.options.scales.x : config.options.scales.y;
      if (!y.log) {
        y.suggestedMax = Math.max(y.suggestedMax === undefined ? h.y : y.suggestedMax, h.y * 1.05);
      }
    });
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
          result.datasets.push({ title: c.title, series: chart.data.datasets.map(function (d) {
            return { label: d.label, points: d.data.length };
          }) });
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
