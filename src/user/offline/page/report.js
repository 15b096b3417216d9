// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The charts of the tcptrace report page, drawn with the embedded Chart.js
// from the runs' series in #tt-data. window.ttReport tells a test what was
// drawn, when, and the totals the charts' data add up to.
'use strict';
(function () {
	const report = (window.ttReport = {
		scriptStart: performance.now(),
		charts: {},
		allDrawn: false,
		drawnAt: null, // performance.now() when the last chart was drawn
		drawMs: null, // from this script's start to the last chart drawn
		totals: [],
		errors: [],
	});
	window.addEventListener('error', (e) => report.errors.push(String(e.message)));

	const data = JSON.parse(document.getElementById('tt-data').textContent);
	const runs = data.runs;

	// Okabe and Ito's palette, told apart with a colour vision deficiency,
	// less its yellow, which is too light on white; then darker tones.
	const COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9',
		'#000000', '#882255', '#117733', '#332288', '#AA4499', '#999933'];
	// A line style per run: solid, dashed, dotted, dash-dot, long dash.
	const DASHES = [[], [8, 4], [2, 3], [12, 4, 2, 4], [16, 6]];
	const RUN_GREY = '#3d444d';
	const CLASSES = ['fin_active', 'fin_passive', 'rst_sent', 'rst_recv', 'timeout'];
	const FEW_POINTS = 30;

	const dashOf = (i) => DASHES[i % DASHES.length];
	const baseName = (path) => path.split('/').pop();
	const runName = (run) => run.label + ' ' + baseName(run.file);
	// Not Math.max(...values): a long run has more values than a call takes
	// arguments.
	const sum = (values) => values.reduce((a, b) => a + b, 0);
	const most = (values) => values.reduce((a, b) => Math.max(a, b), 0);
	const fewest = (values) => values.reduce((a, b) => Math.min(a, b), Infinity);

	// A rate has at most this many points: over a longer run, min-max
	// decimation of counts per interval draws noise as a solid band.
	const MAX_RATE_POINTS = 500;
	const bucketOf = (run) => Math.max(1, Math.ceil(run.timeline.elapsed_s.length / MAX_RATE_POINTS));

	// Counts per interval as a rate: the counts of a bucket of intervals (one
	// interval, unless the run is long) over the time since the end of the
	// bucket before it, or since tracing started; drawn as a step over that
	// time.
	function ratePoints(run, values) {
		const t = run.timeline.elapsed_s;
		const size = bucketOf(run);
		const points = [];
		let prev = 0;
		for (let i = 0; i < t.length; i += size) {
			const end = Math.min(i + size, t.length) - 1;
			const dt = t[end] - prev;
			const y = dt > 0 ? sum(values.slice(i, end + 1)) / dt : null;
			if (i === 0 && t[end] > 0)
				points.push({ x: 0, y: y });
			points.push({ x: t[end], y: y });
			prev = t[end];
		}
		return points;
	}

	function levelPoints(run, values) {
		const t = run.timeline.elapsed_s;
		return t.map((x, i) => ({ x: x, y: values[i] }));
	}

	// The RSTs a run sent, by reason. A per-destination CSV has no reasons,
	// and a process row may count more RSTs than reasons (a full reason map).
	function rstSeries(run) {
		const tl = run.timeline;
		const names = Object.keys(tl.rst_sent_reasons);
		const sent = tl.series.rst_sent;
		if (tl.kind === 'dest')
			return [{ key: 'rst_sent_out', label: 'rst_sent_out (a --by dest CSV has no reasons)', values: sent }];
		const series = names.map((name) => ({ key: name, label: name, values: tl.rst_sent_reasons[name] }));
		const unnamed = sent.map((v, i) => v - sum(names.map((name) => tl.rst_sent_reasons[name][i])));
		// quiet: not worth a note when it is 0, as it should be.
		series.push({ key: 'unrecorded', label: 'reason not recorded', values: unnamed, quiet: true });
		return series;
	}

	const CHARTS = [
		{
			id: 'tw_now', title: 'TIME_WAIT held', y: 'timewait sockets', level: true,
			what: 'tw_now: the timewait sockets of the processes at the end of each interval, summed over them.',
			series: (run) => [{ key: 'tw_now', label: 'tw_now', values: run.timeline.series.tw_now }],
		},
		{
			id: 'conn', title: 'Connections per second, by side', y: 'connections / s', keyName: 'side',
			what: 'conn_in: accepted from a listener (the client side of a proxy); conn_out: opened with connect() (upstream).',
			order: ['conn_in', 'conn_out'],
			series: (run) => ['conn_in', 'conn_out'].filter((k) => k in run.timeline.series)
				.map((k) => ({ key: k, label: k, values: run.timeline.series[k] })),
		},
		{
			id: 'closes', title: 'Closes per second, by class', y: 'closes / s', order: CLASSES, keyName: 'class',
			what: 'How connections ended, both sides added: this side sent the first FIN (fin_active) or the second (fin_passive), sent or received an RST, or timed out.',
			series: (run) => CLASSES.map((k) => ({ key: k, label: k, values: run.timeline.series[k] })),
		},
		{
			id: 'rst', title: 'RSTs sent per second, by reason', y: 'RSTs sent / s', keyName: 'reason',
			what: "rst_sent by the kernel's reason for it (rst_sent_reasons).",
			series: rstSeries,
		},
		{
			id: 'eaddrnotavail', title: 'connect() failures for want of a local port, per second', y: 'EADDRNOTAVAIL / s',
			what: 'eaddrnotavail: connect() found no free local port (nginx logs error 99).',
			series: (run) => [{ key: 'eaddrnotavail', label: 'eaddrnotavail', values: run.timeline.series.eaddrnotavail }],
		},
		{
			id: 'ports_free', title: 'Local ports free, per destination', y: 'free local ports', level: true, dest: true,
			keyName: 'destination',
			what: 'ports_free: ports of the range still free toward each destination, the fewest over the processes.',
			series: (run) => run.timeline.dests.map((d) => ({ key: d.dest, label: d.dest, values: d.ports_free })),
		},
		{
			id: 'runout_s', title: 'Seconds until no local port is free, per destination', y: 'seconds', level: true, dest: true,
			points: true, keyName: 'destination',
			what: 'runout_s: at the interval\u2019s growth of the ports held; no point while they are not growing.',
			series: (run) => run.timeline.dests.map((d) => ({ key: d.dest, label: d.dest, values: d.runout_s })),
		},
	];

	// Seconds on the time axis: "12.5 s" for short runs, "m:ss" or "h:mm:ss".
	function timeText(seconds, span) {
		if (span <= 120)
			return (Math.round(seconds * 10) / 10) + ' s';
		const s = Math.round(seconds);
		const two = (v) => String(v).padStart(2, '0');
		const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
		return (h ? h + ':' + two(m) : String(m)) + ':' + two(s % 60);
	}

	const numberText = (v) => (v === null || v === undefined ? '-' :
		v.toLocaleString('en-US', { maximumFractionDigits: v >= 100 ? 0 : 2 }));

	const isZero = (values) => values.every((v) => !v);
	const isEmpty = (values) => values.every((v) => v === null);

	// The chart's lines: a colour per kind of line (per run when there is
	// one kind), a dash per run. A count that is 0 in every run, or a level
	// that has no value in any, is left out and named below the chart,
	// unless nothing would be left. A level of 0 is drawn: no port free is
	// news.
	function linesOf(def) {
		const perRun = runs.map((run) => def.series(run));
		const keys = [];
		perRun.forEach((list) => list.forEach((s) => {
			let k = keys.find((known) => known.key === s.key);
			if (!k)
				keys.push((k = { key: s.key, label: s.label, zero: true, quiet: s.quiet }));
			k.zero = k.zero && (def.level ? isEmpty(s.values) : isZero(s.values));
		}));
		if (def.order)
			keys.sort((a, b) => def.order.indexOf(a.key) - def.order.indexOf(b.key));
		const dropped = keys.every((k) => k.zero) ? [] : keys.filter((k) => k.zero);
		const shown = keys.filter((k) => !dropped.includes(k));
		const byRun = shown.length === 1;
		const datasets = [];
		shown.forEach((k, ki) => perRun.forEach((list, r) => list.filter((s) => s.key === k.key).forEach((s) => {
			const color = COLORS[(byRun ? r : ki) % COLORS.length];
			const points = def.level ? levelPoints(runs[r], s.values) : ratePoints(runs[r], s.values);
			// Points of their own where a few samples would hardly make a line.
			const few = points.filter((p) => p.y !== null).length <= FEW_POINTS;
			datasets.push({
				label: runName(runs[r]) + (byRun ? '' : ' \u00b7 ' + s.label),
				run: r,
				key: k.key,
				data: points,
				borderColor: color,
				backgroundColor: color,
				borderDash: dashOf(r),
				borderWidth: 1.75,
				pointRadius: def.points || few ? 2.5 : 0,
				pointHitRadius: 4,
				spanGaps: !def.points,
				stepped: def.level ? false : 'after',
			});
		})));
		const lineless = runs.map((run, r) => r).filter((r) => !datasets.some((d) => d.run === r));
		return { datasets, shown, dropped, byRun, lineless };
	}

	function swatch(color, dash) {
		const canvas = document.createElement('canvas');
		canvas.width = 34;
		canvas.height = 10;
		canvas.className = 'swatch';
		canvas.setAttribute('aria-hidden', 'true');
		const ctx = canvas.getContext('2d');
		ctx.strokeStyle = color;
		ctx.lineWidth = 2.5;
		ctx.setLineDash(dash);
		ctx.beginPath();
		ctx.moveTo(1, 5);
		ctx.lineTo(33, 5);
		ctx.stroke();
		return canvas;
	}

	// One legend entry; a click hides or shows its lines.
	function entry(list, chart, text, color, dash, matches) {
		const item = document.createElement('li');
		const button = document.createElement('button');
		button.type = 'button';
		button.setAttribute('aria-pressed', 'true');
		button.append(swatch(color, dash), document.createTextNode(text));
		button.addEventListener('click', () => {
			const on = button.getAttribute('aria-pressed') !== 'true';
			button.setAttribute('aria-pressed', String(on));
			chart.data.datasets.forEach((d, i) => { if (matches(d)) chart.setDatasetVisibility(i, on); });
			chart.update();
		});
		item.appendChild(button);
		list.appendChild(item);
	}

	// The legend in HTML: Chart.js 3.9 draws its legend boxes without the
	// lines' dashes. The colours name the kinds of line, the dashes the runs.
	function legend(fig, chart, def, lines) {
		const box = document.createElement('div');
		box.className = 'legend';
		const kinds = document.createElement('ul');
		if (!lines.byRun) {
			lines.shown.forEach((k, ki) => entry(kinds, chart, k.label, COLORS[ki % COLORS.length], [],
				(d) => d.key === k.key));
			box.appendChild(kinds);
		}
		const runList = document.createElement('ul');
		runs.forEach((run, r) => {
			if (lines.lineless.includes(r))
				return;
			const color = lines.byRun ? COLORS[r % COLORS.length] : RUN_GREY;
			entry(runList, chart, runName(run), color, dashOf(r), (d) => d.run === r);
		});
		box.appendChild(runList);
		const notes = [];
		// One kind of line, coloured by run: say which kind it is.
		if (lines.byRun && def.keyName)
			notes.push('Every line: ' + def.keyName + ' ' + lines.shown[0].label + '.');
		const zero = lines.dropped.filter((k) => !k.quiet);
		if (zero.length)
			notes.push((def.level ? 'No value, not drawn: ' : '0 throughout, not drawn: ') +
				zero.map((k) => k.label).join(', ') + '.');
		if (lines.lineless.length)
			notes.push('No line for ' + lines.lineless.map((r) => runName(runs[r])).join(', ') +
				(def.level ? ': no value, or not in its CSV.' : ': 0 throughout, or not in its CSV.'));
		if (notes.length) {
			const p = document.createElement('p');
			p.className = 'zero';
			p.textContent = notes.join(' ');
			box.appendChild(p);
		}
		fig.appendChild(box);
	}

	const span = Math.max(1, most(runs.map((run) => most(run.timeline.elapsed_s))));

	const drawnPlugin = {
		id: 'ttDrawn',
		afterDraw(chart) {
			const state = report.charts[chart.canvas.dataset.chart];
			if (state.drawn)
				return;
			state.drawn = true;
			state.drawnAt = performance.now();
			if (Object.values(report.charts).every((c) => c.drawn)) {
				report.allDrawn = true;
				report.drawnAt = performance.now();
				report.drawMs = report.drawnAt - report.scriptStart;
			}
		},
	};

	function figure(def) {
		const fig = document.createElement('figure');
		fig.className = 'chart';
		fig.id = 'chart-' + def.id;
		const caption = document.createElement('figcaption');
		caption.textContent = def.title;
		const what = document.createElement('p');
		what.className = 'what';
		what.textContent = def.what;
		const box = document.createElement('div');
		box.className = 'canvas-box';
		const canvas = document.createElement('canvas');
		canvas.dataset.chart = def.id;
		canvas.setAttribute('role', 'img');
		canvas.setAttribute('aria-label', def.title);
		box.appendChild(canvas);
		fig.append(caption, what, box);
		return fig;
	}

	function draw(def, grid) {
		const fig = figure(def);
		grid.appendChild(fig);
		const lines = linesOf(def);
		report.charts[def.id] = {
			drawn: false, drawnAt: null, datasets: lines.datasets.length,
			points: sum(lines.datasets.map((d) => d.data.length)),
		};
		const chart = new Chart(fig.querySelector('canvas'), {
			type: 'line',
			data: { datasets: lines.datasets },
			options: {
				animation: false,
				parsing: false,
				normalized: true,
				responsive: true,
				maintainAspectRatio: false,
				interaction: { mode: 'nearest', axis: 'x', intersect: false },
				scales: {
					x: {
						type: 'linear', min: 0, max: span,
						title: { display: true, text: 'time since tracing started' },
						ticks: { callback: (v) => timeText(v, span), maxRotation: 0 },
					},
					y: {
						beginAtZero: true,
						title: { display: true, text: def.y },
						ticks: { precision: def.id === 'runout_s' ? 1 : 0 },
					},
				},
				plugins: {
					legend: { display: false },
					// Points with gaps (runout_s) are drawn as they are.
					decimation: { enabled: !def.points, algorithm: 'min-max' },
					tooltip: {
						callbacks: {
							title: (items) => (items.length ? timeText(items[0].parsed.x, 60) : ''),
							label: (item) => item.dataset.label + ': ' + numberText(item.parsed.y),
						},
					},
				},
			},
			plugins: [drawnPlugin],
		});
		legend(fig, chart, def, lines);
		return chart;
	}

	// The totals the charts' data add up to, for a test to hold against the
	// CSV and the page's tables.
	function totalsOf(run) {
		const tl = run.timeline;
		const totals = { series: {}, tw_now_peak: most(tl.series.tw_now), rst_sent_reasons: {}, dests: {} };
		Object.keys(tl.series).forEach((k) => { if (k !== 'tw_now') totals.series[k] = sum(tl.series[k]); });
		Object.keys(tl.rst_sent_reasons).forEach((k) => { totals.rst_sent_reasons[k] = sum(tl.rst_sent_reasons[k]); });
		tl.dests.forEach((d) => {
			const free = d.ports_free.filter((v) => v !== null);
			totals.dests[d.dest] = { fewest_free: free.length ? fewest(free) : null };
		});
		return totals;
	}

	report.totals = runs.map(totalsOf);
	const bucketed = runs.filter((run) => bucketOf(run) > 1);
	if (bucketed.length)
		document.getElementById('buckets').textContent = 'A run of more than ' + MAX_RATE_POINTS +
			' intervals has its rates averaged over a few intervals at a time: ' +
			bucketed.map((run) => runName(run) + ' over ' + bucketOf(run)).join(', ') + '.';
	document.querySelectorAll('td.sample[data-run]').forEach((cell) => {
		const r = Number(cell.dataset.run);
		cell.appendChild(swatch(RUN_GREY, dashOf(r)));
	});
	const version = document.getElementById('chartjs-version');
	if (version)
		version.textContent = Chart.version;
	Chart.defaults.color = '#1b1f24';
	Chart.defaults.borderColor = '#d8dde3';
	Chart.defaults.font.family = getComputedStyle(document.documentElement).fontFamily;
	const grid = document.getElementById('chart-grid');
	const anyDest = runs.some((run) => run.timeline.kind === 'dest');
	const charts = CHARTS.filter((def) => !def.dest || anyDest).map((def) => draw(def, grid));
	// Canvases keep their screen size on paper unless told of the new width.
	window.addEventListener('beforeprint', () => charts.forEach((c) => c.resize()));
	window.addEventListener('afterprint', () => charts.forEach((c) => c.resize()));
})();
