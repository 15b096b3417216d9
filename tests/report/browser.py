#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Opens a tcptrace report page in Debian's chromium, headless, and says on
stdout, one fact a line, what the page did:

  request URL                       every request the page made
  console LEVEL TEXT                every console message, exception or log
                                    entry of level warning or error
  chart ID drawn N datasets N points N inked N
                                    per chart: drawn as the page says
                                    (window.ttReport), and how many pixels of
                                    its plot area are ink, read back from the
                                    canvas (getImageData)
  folded ID shown|hidden TEXT       per chart the page says it folded
                                    (window.ttReport.folded): its line under
                                    the charts, whether it is seen, its text
  canvas ID                         every chart's canvas in the page
  all_drawn true|false
  draw_ms N                         from the page script's start to the last
                                    chart drawn
  ready_ms N                        from navigation start to the last chart
                                    drawn
  elements img N                    <img>, <iframe>, <object> and <embed>
                                    elements: the page has none of its own
  run LABEL TEXT                    the file of each run, as the page shows it
  processes LABEL TEXT              and its processes
  table|dest|chart ...              the totals the page shows, and those its
                                    charts' data add up to
  compare TITLE|ROW|L|CELL|...      compare's sections as the page shows
                                    them, a line per row and run: its cells
                                    (total, rate, ratio; drops, peak, limit)
  verdict TEXT                      the verdict, in its place under TIME_WAIT
  choice GROUP on|off               each choice of the names drawn, as shown
  line L CHART KEY TOTAL GROUP      each line drawn per name whose total is
                                    not 0: run L's series KEY of GROUP (all,
                                    or name=COMM), its values added up (a
                                    level) or its rate times the time each
                                    point covers (a count)
  step N toggled on|off redraw_ms N GROUP
                                    after each GROUP given on the command
                                    line, its choice clicked in turn:
  step N added|removed|redrawn CHART L KEY GROUP
                                    every line that came, went, or was
                                    given other data
  step N line ...                   and the lines drawn then
  screenshot PATH WIDTHxHEIGHT      the whole page; PATH-print.png with the
                                    print style; PATH-step-N.png after step N

It speaks the DevTools protocol over --remote-debugging-pipe (file
descriptors 3 and 4, messages ending in a NUL byte), with the standard
library only. Usage: browser.py PAGE.html SCREENSHOT.png PROFILE_DIR [GROUP]...
Exit status 0 when it could say all that, 1 when the browser failed.
"""
import base64
import fcntl
import json
import os
import select
import subprocess
import sys
import time

TIMEOUT_S = 60
WIDTH = 1400
HEIGHT = 1000

# What the tests read of the charts: the lines drawn, known by chart, run,
# series and group, and the total each adds up to. Min-max decimation keeps
# the data a line was given in _data.
LINES_JS = r"""
const ttLabels = JSON.parse(document.getElementById('tt-data').textContent).runs.map((r) => r.label);
window.ttTest = {
	drawn() {
		const out = [];
		for (const [id, c] of Object.entries(window.ttReport.charts)) {
			const chart = Chart.getChart(document.querySelector('canvas[data-chart="' + id + '"]'));
			chart.data.datasets.forEach((d, i) => {
				if (chart.isDatasetVisible(i))
					out.push({ id, byName: c.byName, d, data: d._data || d.data });
			});
		}
		return out;
	},
	key(e) {
		return [e.id, ttLabels[e.d.run], e.d.key, e.d.group].join(' ');
	},
	total(e) {
		const p = e.data;
		let t = 0;
		if (e.d.level)
			p.forEach((q) => { t += q.y || 0; });
		for (let i = 1; !e.d.level && i < p.length; i++)
			t += (p[i].y || 0) * (p[i].x - p[i - 1].x);
		return Math.round(t);
	},
	lines() {
		return this.drawn().filter((e) => e.byName && this.total(e) !== 0).map((e) => {
			const [id, label, key, ...group] = this.key(e).split(' ');
			return ['line', label, id, key, this.total(e), group.join(' ')].join(' ');
		});
	},
	choices() {
		return [...document.querySelectorAll('#names input')].map((i) =>
			'choice ' + i.dataset.group + ' ' + (i.checked ? 'on' : 'off'));
	},
	// Clicks GROUP's choice: what changed, and the lines drawn then.
	step(n, group) {
		const keyed = () => new Map(this.drawn().map((e) => [this.key(e), e]));
		const before = keyed();
		const input = [...document.querySelectorAll('#names input')].find((i) => i.dataset.group === group);
		if (!input)
			return ['step ' + n + ' no-choice ' + group];
		input.click();
		const after = keyed();
		const lines = ['step ' + n + ' toggled ' + (input.checked ? 'on' : 'off') + ' redraw_ms ' +
			window.ttReport.redrawMs.toFixed(1) + ' ' + group];
		for (const [k, e] of after) {
			const b = before.get(k);
			if (!b)
				lines.push('step ' + n + ' added ' + k);
			else if (b.d !== e.d || b.data !== e.data)
				lines.push('step ' + n + ' redrawn ' + k);
		}
		for (const k of before.keys())
			if (!after.has(k))
				lines.push('step ' + n + ' removed ' + k);
		return lines.concat(this.lines().map((l) => 'step ' + n + ' ' + l));
	},
};
"""

# What the page shows and holds, gathered in the page.
FACTS_JS = r"""
(() => {
	const lines = [];
	const report = window.ttReport || {};
	const runs = JSON.parse(document.getElementById('tt-data').textContent).runs;
	const label = (i) => runs[Number(i)].label;
	for (const [id, c] of Object.entries(report.charts || {})) {
		const canvas = document.querySelector('canvas[data-chart="' + id + '"]');
		const chart = canvas && Chart.getChart(canvas);
		let inked = 0;
		if (chart) {
			// Ink: a saturated or dark pixel; the grid is light grey, the
			// background white and transparent.
			const a = chart.chartArea, dpr = chart.currentDevicePixelRatio;
			const x = Math.floor(a.left * dpr), y = Math.floor(a.top * dpr);
			const w = Math.ceil((a.right - a.left) * dpr), h = Math.ceil((a.bottom - a.top) * dpr) + 2;
			const px = canvas.getContext('2d').getImageData(x, y, w, h).data;
			for (let i = 0; i < px.length; i += 4) {
				if (px[i + 3] < 128)
					continue;
				const hi = Math.max(px[i], px[i + 1], px[i + 2]);
				const lo = Math.min(px[i], px[i + 1], px[i + 2]);
				if (hi - lo > 60 || hi < 150)
					inked++;
			}
		}
		lines.push(['chart', id, 'drawn', c.drawn ? 1 : 0, 'datasets', c.datasets,
			'points', c.points, 'inked', inked].join(' '));
	}
	(report.folded || []).forEach((id) => {
		const item = document.querySelector('#folded li[data-chart="' + id + '"]');
		lines.push(['folded', id, item && item.offsetHeight > 0 ? 'shown' : 'hidden',
			item ? item.textContent : ''].join(' '));
	});
	document.querySelectorAll('canvas[data-chart]').forEach((c) => lines.push('canvas ' + c.dataset.chart));
	lines.push('all_drawn ' + (report.allDrawn === true));
	lines.push('draw_ms ' + (report.drawMs === null ? 'none' : report.drawMs.toFixed(1)));
	lines.push('ready_ms ' + (report.drawnAt === null ? 'none' : report.drawnAt.toFixed(1)));
	lines.push('elements img ' + document.querySelectorAll('img, iframe, object, embed').length);
	document.querySelectorAll('#runs tbody tr').forEach((tr, i) => {
		lines.push('run ' + label(i) + ' ' + tr.querySelector('td.file').textContent);
		lines.push('processes ' + label(i) + ' ' + tr.lastElementChild.textContent);
	});
	// Each total as the reader sees it; its data-total must say the same.
	const shown = (td) => {
		const text = td.textContent;
		if (td.dataset.total !== undefined && td.dataset.total !== text)
			return 'attribute-' + td.dataset.total + '-text-' + text;
		return text;
	};
	document.querySelectorAll('#compare td[data-counter]').forEach((td) =>
		lines.push(['table', label(td.dataset.run), td.dataset.counter, shown(td)].join(' ')));
	// compare's sections, each row's cells run by run: 2 for the first run
	// and 3 for a later one (total, /s, ratio), or 3 per run per name.
	document.querySelectorAll('#compare table[data-section]').forEach((table) => {
		const perName = table.dataset.layout === 'queues';
		table.querySelectorAll('tbody tr').forEach((tr) => {
			const cells = [...tr.querySelectorAll('td')].map((td) => td.textContent);
			let at = 0;
			runs.forEach((run, i) => {
				const width = perName || i ? 3 : 2;
				lines.push(['compare ' + table.dataset.section, tr.querySelector('th').textContent,
					run.label].concat(cells.slice(at, at + width)).join('|'));
				at += width;
			});
		});
		const next = table.nextElementSibling;
		if (next && next.classList.contains('verdict'))
			lines.push('verdict ' + next.textContent);
	});
	document.querySelectorAll('#destinations tr[data-dest]').forEach((tr) =>
		tr.querySelectorAll('td[data-counter]').forEach((td) =>
			lines.push(['dest', label(tr.dataset.run), tr.dataset.dest, td.dataset.counter,
				shown(td)].join(' '))));
	(report.totals || []).forEach((t, i) => {
		const L = label(i);
		for (const [k, v] of Object.entries(t.series))
			lines.push(['chart', L, k, v].join(' '));
		for (const [k, v] of Object.entries(t.peaks))
			lines.push(['chart', L, 'peak', k, v].join(' '));
		for (const [k, v] of Object.entries(t.rst_sent_reasons))
			lines.push(['chart', L, 'reason', k, v].join(' '));
		for (const [d, v] of Object.entries(t.dests))
			lines.push(['chart', L, 'dest', d, 'fewest_free', v.fewest_free].join(' '));
	});
	return lines.concat(ttTest.choices(), ttTest.lines());
})()
"""


class Browser:
    """chromium with a DevTools pipe; one page target, flat sessions."""

    def __init__(self, profile):
        to_chrome = [self._high(fd) for fd in os.pipe()]
        from_chrome = [self._high(fd) for fd in os.pipe()]

        def pipe_fds():
            os.dup2(to_chrome[0], 3)
            os.dup2(from_chrome[1], 4)

        args = ['chromium', '--headless', '--disable-gpu', '--no-sandbox',
                '--remote-debugging-pipe', '--user-data-dir=' + profile,
                '--no-first-run', '--no-default-browser-check', '--disable-extensions',
                '--disable-background-networking', '--disable-component-update',
                '--disable-sync', '--hide-scrollbars', '--window-size=%d,%d' % (WIDTH, HEIGHT),
                'about:blank']
        self.log = open(os.path.join(profile, 'chromium.log'), 'w')
        # The pipe ends are close-on-exec but for the two duplicated to 3 and 4.
        self.proc = subprocess.Popen(args, preexec_fn=pipe_fds, close_fds=False,
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        os.close(to_chrome[0])
        os.close(from_chrome[1])
        self.out, self.inp = to_chrome[1], from_chrome[0]
        self.buf = b''
        self.next_id = 0
        self.events = []
        self.deadline = time.monotonic() + TIMEOUT_S

    @staticmethod
    def _high(fd):
        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(fd)
        return high

    def _read_message(self):
        while b'\0' not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0 or not select.select([self.inp], [], [], left)[0]:
                raise RuntimeError('no answer from chromium within %d s' % TIMEOUT_S)
            data = os.read(self.inp, 1 << 20)
            if not data:
                raise RuntimeError('chromium closed the pipe (see chromium.log)')
            self.buf += data
        message, _, self.buf = self.buf.partition(b'\0')
        return json.loads(message)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session:
            message['sessionId'] = session
        os.write(self.out, json.dumps(message).encode() + b'\0')
        while True:
            reply = self._read_message()
            if reply.get('id') == self.next_id:
                if 'error' in reply:
                    raise RuntimeError('%s: %s' % (method, reply['error']))
                return reply['result']
            self.events.append(reply)

    def wait_event(self, method):
        while True:
            for i, event in enumerate(self.events):
                if event.get('method') == method:
                    return self.events.pop(i)
            self.events.append(self._read_message())

    def close(self):
        try:
            self.call('Browser.close')
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def evaluate(browser, session, expression):
    result = browser.call('Runtime.evaluate', {'expression': expression, 'returnByValue': True,
                                               'awaitPromise': True}, session)
    if 'exceptionDetails' in result:
        raise RuntimeError('evaluate: %s' % result['exceptionDetails'])
    return result['result'].get('value')


def screenshot(browser, session, path):
    size = browser.call('Page.getLayoutMetrics', {}, session)['cssContentSize']
    width, height = int(size['width']), int(size['height'])
    shot = browser.call('Page.captureScreenshot', {
        'format': 'png', 'captureBeyondViewport': True,
        'clip': {'x': 0, 'y': 0, 'width': width, 'height': height, 'scale': 1}}, session)
    with open(path, 'wb') as f:
        f.write(base64.b64decode(shot['data']))
    return width, height


def console_lines(events, session):
    """Warnings and errors of every kind the page can report."""
    lines = []
    for event in events:
        if event.get('sessionId') != session:
            continue
        method, params = event.get('method'), event.get('params', {})
        if method == 'Runtime.consoleAPICalled' and params['type'] in ('error', 'warning',
                                                                       'assert'):
            text = ' '.join(str(a.get('value', a.get('description', ''))) for a in params['args'])
            lines.append('console %s %s' % (params['type'], text))
        elif method == 'Runtime.exceptionThrown':
            details = params['exceptionDetails']
            text = details.get('exception', {}).get('description', details.get('text', ''))
            lines.append('console exception %s' % text.replace('\n', ' '))
        elif method == 'Log.entryAdded' and params['entry']['level'] in ('error', 'warning'):
            entry = params['entry']
            lines.append('console %s %s' % (entry['level'], entry['text'].replace('\n', ' ')))
    return lines


def main():
    if len(sys.argv) < 4:
        sys.exit('usage: browser.py PAGE.html SCREENSHOT.png PROFILE_DIR [GROUP]...')
    page, shot, profile = sys.argv[1:4]
    steps = sys.argv[4:]
    url = 'file://' + os.path.abspath(page)
    browser = Browser(profile)
    try:
        target = browser.call('Target.createTarget', {'url': 'about:blank'})['targetId']
        session = browser.call('Target.attachToTarget',
                               {'targetId': target, 'flatten': True})['sessionId']
        for domain in ('Page', 'Runtime', 'Network', 'Log'):
            browser.call(domain + '.enable', {}, session)
        browser.call('Emulation.setDeviceMetricsOverride', {
            'width': WIDTH, 'height': HEIGHT, 'deviceScaleFactor': 1, 'mobile': False}, session)
        browser.call('Page.navigate', {'url': url}, session)
        browser.wait_event('Page.loadEventFired')
        while not evaluate(browser, session, 'window.ttReport && window.ttReport.allDrawn'):
            if time.monotonic() > browser.deadline - 10:
                break
            time.sleep(0.05)
        evaluate(browser, session, LINES_JS)
        facts = evaluate(browser, session, FACTS_JS)
        width, height = screenshot(browser, session, shot)
        for n, group in enumerate(steps, 1):
            facts += evaluate(browser, session, 'ttTest.step(%d, %s)' % (n, json.dumps(group)))
            screenshot(browser, session, '%s-step-%d.png' % (shot[:-len('.png')], n))
        browser.call('Emulation.setEmulatedMedia', {'media': 'print'}, session)
        evaluate(browser, session, 'new Promise((done) => requestAnimationFrame(() => '
                                   'requestAnimationFrame(done)))')
        screenshot(browser, session, shot[:-len('.png')] + '-print.png')
        events = list(browser.events)
    finally:
        browser.close()
    for event in events:
        if event.get('method') == 'Network.requestWillBeSent' and event.get('sessionId') == session:
            print('request', event['params']['request']['url'])
    for line in console_lines(events, session):
        print(line)
    for line in facts:
        print(line)
    print('screenshot %s %dx%d' % (shot, width, height))


if __name__ == '__main__':
    try:
        main()
    except (RuntimeError, OSError) as e:
        print('browser.py: %s' % e, file=sys.stderr)
        sys.exit(1)
