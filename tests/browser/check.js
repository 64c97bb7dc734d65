/*
 * check.js: injected by tests/browser_check.sh at the top of a copy of an
 * HTML page or an SVG chart, before anything of the page runs.  It records
 * every console error, script error, failed load and policy violation, and
 * once the page is laid out measures, with the browser's own boxes:
 *   - every SVG <text> against its <svg> (a label cut at the chart's edge),
 *     and every two SVG labels against each other (labels drawn on top of
 *     each other);
 *   - every HTML text line against the box that holds it and against the
 *     viewport (text that runs out of its cell or off a phone's screen),
 *     unless it sits in a box the reader can scroll sideways;
 *   - the page's width against the viewport's.
 * The verdict goes into the root element's data-rb-check attribute, which
 * the browser's --dump-dom prints: "SIZE width height", then one problem
 * per line.  RB_OPEN (set by the
 * script) opens every <details> first, so collapsed tables are measured.
 */
(function () {
  'use strict';
  var problems = [];
  function note(s) {
    if (problems.length < 40) problems.push(String(s).replace(/\s+/g, ' ').slice(0, 400));
  }
  function short(s) {
    s = String(s).replace(/\s+/g, ' ').trim();
    return s.length > 60 ? s.slice(0, 57) + '...' : s;
  }
  function box(r) {
    return '[' + Math.round(r.left) + '..' + Math.round(r.right) + ' x ' + Math.round(r.top) +
           '..' + Math.round(r.bottom) + ']';
  }
  console.error = function () {
    note('console error: ' + Array.prototype.join.call(arguments, ' '));
  };
  window.addEventListener('error', function (e) {
    var t = e.target;
    if (t && t !== window && (t.src || t.href))
      note('failed to load ' + (t.src || t.href.baseVal || t.href));
    else
      note('script error: ' + e.message + ' (' + e.filename + ':' + e.lineno + ')');
  }, true);
  window.addEventListener('unhandledrejection', function (e) {
    note('unhandled rejection: ' + e.reason);
  });
  document.addEventListener('securitypolicyviolation', function (e) {
    note('blocked by the page\'s policy: ' + e.blockedURI + ' (' + e.violatedDirective + ')');
  });

  function checkSvg(svg) {
    var outer = svg.getBoundingClientRect();
    var texts = svg.querySelectorAll('text');
    var seen = [];
    for (var i = 0; i < texts.length; i++) {
      var r = texts[i].getBoundingClientRect();
      if (!r.width || !r.height) continue;
      if (r.left < outer.left - 0.5 || r.right > outer.right + 0.5 || r.top < outer.top - 0.5 ||
          r.bottom > outer.bottom + 0.5)
        note('clipped: SVG text "' + short(texts[i].textContent) + '" at ' + box(r) +
             ' leaves its chart ' + box(outer));
      for (var k = 0; k < seen.length; k++) {
        var q = seen[k].r;
        var w = Math.min(r.right, q.right) - Math.max(r.left, q.left);
        var h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
        if (w > 2 && h > 4)
          note('overlap: SVG text "' + short(texts[i].textContent) + '" ' + box(r) +
               ' is drawn over "' + short(seen[k].t.textContent) + '" ' + box(q));
      }
      seen.push({t: texts[i], r: r});
    }
  }

  function blockOf(el) {
    while (el.parentElement) {
      var d = getComputedStyle(el).display;
      if (d !== 'inline' && d !== 'contents') break;
      el = el.parentElement;
    }
    return el;
  }
  function scrollsSideways(el) {
    for (; el && el !== document.documentElement; el = el.parentElement) {
      var o = getComputedStyle(el).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  }

  function checkHtml() {
    var root = document.documentElement, vw = root.clientWidth;
    if (root.scrollWidth > vw + 1)
      note('overflow: the page is ' + root.scrollWidth + ' px wide in a ' + vw + ' px viewport');
    var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (var n = walk.nextNode(); n; n = walk.nextNode()) {
      if (!n.nodeValue.trim()) continue;
      var p = n.parentElement;
      if (!p || p.closest('svg, script, style, noscript, title')) continue;
      var range = document.createRange();
      range.selectNodeContents(n);
      var lines = range.getClientRects();
      if (!lines.length) continue;
      var b = blockOf(p), br = b.getBoundingClientRect();
      var left = br.left + b.clientLeft, right = left + b.clientWidth;
      var scroll = scrollsSideways(b);
      for (var i = 0; i < lines.length; i++) {
        var r = lines[i];
        if (!scroll && (r.right > right + 1 || r.left < left - 1)) {
          note('overflow: text "' + short(n.nodeValue) + '" ' + box(r) + ' runs out of its <' +
               b.tagName.toLowerCase() + '> [' + Math.round(left) + '..' + Math.round(right) +
               ']');
          break;
        }
        if (!scroll && (r.right > vw + 1 || r.left < -1)) {
          note('overflow: text "' + short(n.nodeValue) + '" ' + box(r) + ' leaves the ' + vw +
               ' px viewport');
          break;
        }
      }
    }
    var svgs = document.querySelectorAll('svg');
    for (var s = 0; s < svgs.length; s++) checkSvg(svgs[s]);
  }

  function check() {
    var root = document.documentElement;
    try {
      if (root.namespaceURI === 'http://www.w3.org/2000/svg') {
        checkSvg(root);
      } else {
        if (window.RB_OPEN) {
          var d = document.querySelectorAll('details');
          for (var i = 0; i < d.length; i++) d[i].open = true;
        }
        checkHtml();
      }
    } catch (e) {
      note('the check itself failed: ' + e);
    }
    var r = root.getBoundingClientRect();
    var w = Math.ceil(Math.max(r.width, root.scrollWidth || 0));
    var h = Math.ceil(Math.max(r.height, root.scrollHeight || 0));
    root.setAttribute('data-rb-check', ['SIZE ' + w + ' ' + h].concat(problems).join('\n'));
  }
  window.addEventListener('load', function () {
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(check);
    else check();
  });
})();
