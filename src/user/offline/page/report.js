// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The charts of the tcptrace report page, drawn with the embedded Chart.js
// from the runs' series in #tt-data, per process name as the reader
// chooses; a chart with nothing to draw is folded into one line. window.ttReport
// tells a test what was drawn or folded, when, and the totals the charts' data
// add up to.
'use strict';
(function () {
	const report = (window.ttReport = {
		scriptStart: performance.now(),
		charts: {},
		folded: [], // the ids of the charts with nothing to draw, not drawn
		allDrawn: false,
		drawnAt: null, // performance.now() when the last chart was drawn
		drawMs: null, // from this script's start to the last chart drawn
		totals: [],
		redrawMs: null, // the last redraw after a choice of names
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
	const BEFORE_SYN = ['connfail_enetunreach', 'connfail_ehostunreach', 'connfail_eacces',
		'connfail_einval', 'connfail_eperm', 'connfail_other'];
	const FEW_POINTS = 30;
	const MAX_NAMES_AT_FIRST = 4;

	const dashOf = (i) => DASHES[i % DASHES.length];
	const baseName = (path) => path.split('/').pop();
	const runName = (run) => run.label + ' ' + baseName(run.file);
	// Not Math.max(...values): a long run has more values than a call takes
	// arguments.
	const sum = (values) => values.reduce((a, b) => a + b, 0);
	const most = (values) => values.reduce((a, b) => Math.max(a, b), 0);
	const fewest = (values) => values.reduce((a, b) => Math.min(a, b), Infinity);

	// What the lines of a chart can be drawn for: the sum over every process,
	// and each process name of any run (its CSV's comm, as compare names its
	// processes). Their ids are what a test names them by.
	const ALL = { id: 'all', label: 'all processes', choice: 'all processes (sum)' };
	const nameList = [...new Set(runs.flatMap((run) => run.timeline.names.map((n) => n.name)))].sort();
	const groups = [ALL].concat(nameList.map((name) => ({ id: 'name=' + name, name, label: name, choice: name })));

	// A group's series in a run ({series, rst_sent_reasons}), or null when
	// the run has no process of that name.
	const dataOf = (run, group) => (group === ALL ? run.timeline :
		run.timeline.names.find((n) => n.name === group.name) || null);

	// At first the names with the most connections are drawn, a few at
	// most; the sum is a choice away.
	const connections = (group) => sum(runs.map((run) => {
		const d = dataOf(run, group);
		return d ? sum(['conn_in', 'conn_out'].map((k) => sum(d.series[k] || []))) : 0;
	}));
	const busiest = groups.slice(1).map((group) => ({ group, n: connections(group) }))
		.sort((a, b) => b.n - a.n).slice(0, MAX_NAMES_AT_FIRST).map((a) => a.group);
	const chosen = new Set(busiest.length ? busiest : [ALL]);

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

	// The lines of the named series of a group, those its run's CSV has.
	const seriesOf = (...keys) => (d) => keys.filter((k) => k in d.series)
		.map((k) => ({ key: k, label: k, values: d.series[k] }));

	// The RSTs a group sent, by reason. A per-destination CSV has no reasons,
	// and a process row may count more RSTs than reasons (a full reason map).
	function rstSeries(d, run) {
		const names = Object.keys(d.rst_sent_reasons);
		const sent = d.series.rst_sent;
		if (run.timeline.kind === 'dest')
			return [{ key: 'rst_sent_out', label: 'rst_sent_out (a --by dest CSV has no reasons)', values: sent }];
		const series = names.map((name) => ({ key: name, label: name, values: d.rst_sent_reasons[name] }));
		const unnamed = sent.map((v, i) => v - sum(names.map((name) => d.rst_sent_reasons[name][i])));
		// quiet: not worth a note when it is 0, as it should be.
		series.push({ key: 'unrecorded', label: 'reason not recorded', values: unnamed, quiet: true });
		return series;
	}

	// series(d, run) gives a chart's lines for d, the series of one group of
	// run. A chart of one more CSV column is one more entry with
	// seriesOf('column'); it is drawn when a run's CSV has the column. The
	// charts per destination (dest) are drawn from every process, not per
	// name.
	const CHARTS = [
		{
			id: 'tw_now', title: 'TIME_WAIT held', y: 'timewait sockets', level: true,
			what: 'tw_now: the timewait sockets of the processes at the end of each interval, summed over them.',
			series: seriesOf('tw_now'),
		},
		{
			id: 'conn', title: 'Connections per second, by side', y: 'connections / s', keyName: 'side',
			what: 'conn_in: accepted from a listener (the client side of a proxy); conn_out: opened with connect() (upstream).',
			order: ['conn_in', 'conn_out'],
			series: seriesOf('conn_in', 'conn_out'),
		},
		{
			id: 'open', title: 'Open connections, by side', y: 'connections open', level: true, keyName: 'side',
			what: 'open_in, open_out: connections ESTABLISHED at the end of each interval, accepted (in) or opened with connect() (out), summed over the processes.',
			order: ['open_in', 'open_out'],
			series: seriesOf('open_in', 'open_out'),
		},
		{
			id: 'closes', title: 'Closes per second, by class', y: 'closes / s', order: CLASSES, keyName: 'class',
			what: 'How connections ended, both sides added: this side sent the first FIN (fin_active) or the second (fin_passive), sent or received an RST, or timed out.',
			series: seriesOf(...CLASSES),
		},
		{
			id: 'rst', title: 'RSTs sent per second, by reason', y: 'RSTs sent / s', keyName: 'reason',
			what: "rst_sent by the kernel's reason for it (rst_sent_reasons).",
			series: rstSeries,
		},
		{
			id: 'eaddrnotavail', title: 'Failures for want of a local port, per second, by syscall', y: 'failures / s',
			keyName: 'syscall',
			what: 'eaddrnotavail: connect() found no free local port (nginx logs error 99); eaddrinuse: bind() to port 0 found none.',
			order: ['eaddrnotavail', 'eaddrinuse'],
			series: seriesOf('eaddrnotavail', 'eaddrinuse'),
		},
		{
			id: 'before_syn', title: 'connect()s refused before any SYN, per second, by errno', y: 'failures / s',
			keyName: 'errno',
			what: "connfail_enetunreach (no route), connfail_ehostunreach (an unreachable route), connfail_eacces (a prohibit route, an LSM), connfail_einval (a blackhole route), connfail_eperm (a cgroup connect hook, an LSM), connfail_other: connect() returned the error before its socket sent a SYN.",
			order: BEFORE_SYN,
			series: seriesOf(...BEFORE_SYN),
		},
		{
			id: 'listen_drops', title: 'Connection attempts dropped by a full listen queue, per second', y: 'drops / s',
			what: "listen_drops: connection attempts the processes' listeners dropped, their accept queue (or SYN queue) full; the client sends its SYN again a second or more later.",
			series: seriesOf('listen_drops'),
		},
		{
			id: 'acceptq', title: 'Accept queue: the deepest, and its limit', y: 'connections queued', level: true,
			keyName: 'series',
			what: "acceptq_peak: the deepest accept queue of a listener in each interval, the deepest over the processes, not their sum; acceptq_limit: that listener's limit (its backlog). A peak above the limit is a full queue.",
			order: ['acceptq_peak', 'acceptq_limit'],
			series: seriesOf('acceptq_peak', 'acceptq_limit'),
		},
		{
			id: 'syn_retrans', title: 'SYNs sent again per second, by side', y: 'SYNs sent again / s', keyName: 'side',
			what: "syn_retrans_out: SYNs of connect() sent again, each a wait of a second or more; synack_retrans_in: SYN-ACKs the listeners sent again, the client's last ACK late or dropped by a full accept queue.",
			order: ['syn_retrans_out', 'synack_retrans_in'],
			series: seriesOf('syn_retrans_out', 'synack_retrans_in'),
		},
		{
			id: 'retrans', title: 'Data segments sent again per second, by side', y: 'segments sent again / s',
			keyName: 'series',
			what: 'retrans_in, retrans_out: data segments sent again on the connections accepted (in) or opened with connect() (out), each a wait of a round trip or more for what it carries; retrans_rto: of those, both sides, the ones sent after a retransmission timeout, 200 ms or more each.',
			order: ['retrans_in', 'retrans_out', 'retrans_rto'],
			series: seriesOf('retrans_in', 'retrans_out', 'retrans_rto'),
		},
		{
			id: 'connect_p99', title: 'connect() time, p99 per interval', y: 'seconds, at most', level: true,
			points: true,
			what: "connect_p99_us: the bound of the latency bucket of the interval's 99th percentile of the connects, from the SYN to ESTABLISHED (1-2-5 steps); no point without connects. Above 1 s, a SYN was sent again.",
			series: (d) => ('connect_p99_us' in d.series ? [{ key: 'connect_p99_us', label: 'connect p99',
				values: d.series.connect_p99_us.map((us) => (us ? us / 1e6 : null)) }] : []),
		},
		{
			id: 'connects_slow', title: 'connect()s that took more than 1 s, per second', y: 'connects / s',
			what: 'connects_over_1s: connects established more than a second after their SYN, each one that waited for a SYN sent again.',
			series: seriesOf('connects_over_1s'),
		},
		{
			id: 'ports_free', title: 'Local ports free, per destination', y: 'free local ports', level: true, dest: true,
			drawZero: true, keyName: 'destination',
			what: 'ports_free: ports of the range still free toward each destination, the fewest over the processes.',
			series: (d, run) => run.timeline.dests.map((dest) => ({ key: dest.dest, label: dest.dest, values: dest.ports_free })),
		},
		{
			id: 'runout_s', title: 'Seconds until no local port is free, per destination', y: 'seconds', level: true, dest: true,
			drawZero: true, points: true, keyName: 'destination',
			what: 'runout_s: at the interval\u2019s growth of the ports held; no point while they are not growing.',
			series: (d, run) => run.timeline.dests.map((dest) => ({ key: dest.dest, label: dest.dest, values: dest.runout_s })),
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

	// The kinds of line a chart can draw: one per group and series (per
	// destination in a dest chart), each with its values per run. A kind
	// that is 0 in every run is left out and named below the chart; with
	// drawZero, only one that has no value in any run: no port free is news.
	// A chart all of whose kinds are left out is not drawn (folded). A kind
	// keeps its colour whichever names are chosen; a dash tells the runs
	// apart.
	function kindsOf(def) {
		const from = def.dest ? [ALL] : groups;
		const kinds = [];
		from.forEach((group, g) => runs.forEach((run, r) => {
			const d = dataOf(run, group);
			(d ? def.series(d, run) : []).forEach((s) => {
				let k = kinds.find((known) => known.group === group && known.key === s.key);
				if (!k)
					kinds.push((k = { id: group.id + '\n' + s.key, group, g, key: s.key, keyLabel: s.label,
						zero: true, quiet: s.quiet, lines: [], datasets: null }));
				k.zero = k.zero && (def.drawZero ? isEmpty(s.values) : isZero(s.values));
				k.lines.push({ run: r, values: s.values });
			});
		}));
		const rank = (k) => (def.order ? def.order.indexOf(k.key) : 0);
		kinds.sort((a, b) => a.g - b.g || rank(a) - rank(b));
		const folded = kinds.every((k) => k.zero);
		const dropped = folded ? [] : kinds.filter((k) => k.zero);
		const shown = kinds.filter((k) => !dropped.includes(k));
		// One series throughout: a line is named by its group alone.
		const oneKey = new Set(shown.map((k) => k.key)).size === 1;
		kinds.forEach((k) => {
			k.label = def.dest ? k.keyLabel : oneKey ? k.group.label : k.group.label + ' \u00b7 ' + k.keyLabel;
		});
		// The names first: the sum is not drawn at first.
		const names = shown.filter((k) => k.group !== ALL);
		names.concat(shown.filter((k) => k.group === ALL)).forEach((k, i) => { k.color = COLORS[i % COLORS.length]; });
		return { shown, dropped, oneKey, folded };
	}

	// A kind's line in each run that has it, with what a test needs to know
	// it by: run, group, key, and whether it is a level or a rate.
	function datasetsOf(def, k) {
		return k.lines.map((line) => {
			const run = runs[line.run];
			const points = def.level ? levelPoints(run, line.values) : ratePoints(run, line.values);
			// Points of their own where a few samples would hardly make a line.
			const few = points.filter((p) => p.y !== null).length <= FEW_POINTS;
			return {
				label: runName(run) + ' \u00b7 ' + k.label,
				run: line.run,
				group: k.group.id,
				key: k.key,
				kind: k.id,
				level: Boolean(def.level),
				data: points,
				borderColor: k.color,
				backgroundColor: k.color,
				borderDash: dashOf(line.run),
				borderWidth: 1.75,
				pointRadius: def.points || few ? 2.5 : 0,
				pointHitRadius: 4,
				spanGaps: !def.points,
				stepped: def.level ? false : 'after',
			};
		});
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
	function entry(text, color, dash, on, toggle) {
		const item = document.createElement('li');
		const button = document.createElement('button');
		button.type = 'button';
		button.setAttribute('aria-pressed', String(on));
		button.append(swatch(color, dash), document.createTextNode(text));
		button.addEventListener('click', toggle);
		item.appendChild(button);
		return item;
	}

	// "a, b" when the kinds' labels say it all, else per group:
	// "haproxy: fin_passive, timeout; nginx: fin_active".
	function zeroText(zero, byLabel) {
		if (byLabel)
			return zero.map((k) => k.label).join(', ');
		const of = (group) => zero.filter((k) => k.group === group).map((k) => k.keyLabel).join(', ');
		return [...new Set(zero.map((k) => k.group))].map((group) => group.label + ': ' + of(group)).join('; ');
	}

	// The legend in HTML: Chart.js 3.9 draws its legend boxes without the
	// lines' dashes. The colours name the kinds of line, the dashes the runs.
	// off holds the entries turned off: kind ids and 'run N'.
	function legend(box, def, kinds, drawn, datasets, off, redraw) {
		const flip = (id) => () => {
			if (!off.delete(id))
				off.add(id);
			redraw();
		};
		const list = (items) => {
			const ul = document.createElement('ul');
			ul.append(...items);
			return ul;
		};
		const withLines = runs.map((run, r) => r).filter((r) => datasets.some((d) => d.run === r));
		box.replaceChildren(
			list(drawn.map((k) => entry(k.label, k.color, [], !off.has(k.id), flip(k.id)))),
			list(withLines.map((r) => entry(runName(runs[r]), RUN_GREY, dashOf(r), !off.has('run ' + r),
				flip('run ' + r)))));
		const notes = [];
		// One series, lines named by group: say which series it is.
		if (kinds.oneKey && def.keyName && drawn.length)
			notes.push('Every line: ' + def.keyName + ' ' + drawn[0].keyLabel + '.');
		const zero = kinds.dropped.filter((k) => !k.quiet && (def.dest || chosen.has(k.group)));
		if (zero.length)
			notes.push((def.drawZero ? 'No value, not drawn: ' : '0 throughout, not drawn: ') +
				zeroText(zero, def.dest || kinds.oneKey) + '.');
		const lineless = runs.map((run, r) => r).filter((r) => !withLines.includes(r));
		if (drawn.length && lineless.length)
			notes.push('No line for ' + lineless.map((r) => runName(runs[r])).join(', ') +
				(def.drawZero ? ': no value, or not in its CSV.' : ': 0 throughout, or not in its CSV.'));
		if (!chosen.size && !def.dest)
			notes.push('No process name chosen above the charts.');
		if (notes.length) {
			const p = document.createElement('p');
			p.className = 'zero';
			p.textContent = notes.join(' ');
			box.appendChild(p);
		}
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

	// A chart and its legend, drawn for the groups chosen; redraw() after a
	// choice puts a kind's lines back as they were first made.
	function draw(def, kinds, grid) {
		const fig = figure(def);
		grid.appendChild(fig);
		const off = new Set();
		const state = (report.charts[def.id] = { drawn: false, drawnAt: null, byName: !def.dest });
		const drawn = () => kinds.shown.filter((k) => def.dest || chosen.has(k.group));
		const datasets = () => {
			const list = drawn().flatMap((k) => (k.datasets = k.datasets || datasetsOf(def, k)));
			list.forEach((d) => { d.hidden = off.has(d.kind) || off.has('run ' + d.run); });
			state.datasets = list.length;
			state.points = sum(list.map((d) => (d._data || d.data).length));
			return list;
		};
		const chart = new Chart(fig.querySelector('canvas'), {
			type: 'line',
			data: { datasets: datasets() },
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
		const box = document.createElement('div');
		box.className = 'legend';
		fig.appendChild(box);
		const redraw = () => {
			chart.data.datasets = datasets();
			chart.update();
			legend(box, def, kinds, drawn(), chart.data.datasets, off, redraw);
		};
		legend(box, def, kinds, drawn(), chart.data.datasets, off, redraw);
		return { chart, byName: !def.dest, redraw };
	}

	// The control that chooses the groups drawn: a checkbox per group, and
	// where a name is missing from some runs, the runs it is in.
	function nameChoice(changed) {
		const box = document.createElement('fieldset');
		box.className = 'names';
		box.id = 'names';
		const title = document.createElement('legend');
		title.textContent = 'Lines drawn for';
		box.appendChild(title);
		groups.forEach((group) => {
			const label = document.createElement('label');
			const input = document.createElement('input');
			input.type = 'checkbox';
			input.dataset.group = group.id;
			input.checked = chosen.has(group);
			input.addEventListener('change', () => {
				if (input.checked)
					chosen.add(group);
				else
					chosen.delete(group);
				changed();
			});
			label.append(input, document.createTextNode(group.choice));
			const where = runs.filter((run) => dataOf(run, group)).map((run) => run.label);
			if (where.length < runs.length) {
				const note = document.createElement('span');
				note.className = 'where';
				note.textContent = 'only in ' + where.join(', ');
				label.appendChild(note);
			}
			box.appendChild(label);
		});
		return box;
	}

	// The totals the charts' data add up to, for a test to hold against the
	// CSV and the page's tables: a count's sum, a level's peak.
	const LEVELS = ['tw_now', 'open_in', 'open_out', 'acceptq_peak', 'acceptq_limit', 'connect_p99_us'];
	function totalsOf(run) {
		const tl = run.timeline;
		const totals = { series: {}, peaks: {}, rst_sent_reasons: {}, dests: {} };
		Object.keys(tl.series).forEach((k) => {
			if (LEVELS.includes(k))
				totals.peaks[k] = most(tl.series[k]);
			else
				totals.series[k] = sum(tl.series[k]);
		});
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
	grid.before(nameChoice(() => {
		const start = performance.now();
		charts.filter((c) => c.byName).forEach((c) => c.redraw());
		report.redrawMs = performance.now() - start;
	}));
	// A chart no run has a line for is not drawn: its columns are in none of
	// the CSV files (a --by dest one, or one of an earlier version). One whose
	// every line is 0 throughout every run, for every process (with drawZero:
	// has no value), is not drawn either but folded into one line under the
	// charts, as compare leaves out a section with nothing in it.
	const these = runs.length === 1 ? 'this run' : 'these runs';
	const folds = document.createElement('ul');
	folds.className = 'folded';
	folds.id = 'folded';
	const charts = CHARTS.filter((def) => runs.some((run) => def.series(run.timeline, run).length))
		.map((def) => ({ def, kinds: kindsOf(def) }))
		.filter(({ def, kinds }) => {
			if (!kinds.folded)
				return true;
			const item = document.createElement('li');
			item.dataset.chart = def.id;
			const title = document.createElement('strong');
			title.textContent = def.title;
			item.append(title, document.createTextNode(def.drawZero ? ': no value in ' + these + '.' :
				': none in ' + these + ', 0 throughout for every process; not drawn.'));
			folds.appendChild(item);
			report.folded.push(def.id);
			return false;
		})
		.map(({ def, kinds }) => draw(def, kinds, grid));
	if (report.folded.length)
		grid.after(folds);
	if (!charts.length) {
		report.allDrawn = true;
		report.drawnAt = performance.now();
		report.drawMs = report.drawnAt - report.scriptStart;
	}
	// Canvases keep their screen size on paper unless told of the new width.
	window.addEventListener('beforeprint', () => charts.forEach((c) => c.chart.resize()));
	window.addEventListener('afterprint', () => charts.forEach((c) => c.chart.resize()));
})();
