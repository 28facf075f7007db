// Progressive enhancement only: every page works without this script.
'use strict';
(function () {
  // Copy buttons: <button data-copy="#id">.
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('[data-copy]');
    if (!button) return;
    var source = document.querySelector(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.value || source.textContent).then(function () {
      var label = button.textContent;
      button.textContent = 'Copied';
      setTimeout(function () {
        button.textContent = label;
      }, 1500);
    });
  });

  // Line anchors: #L10 or #L10-L20 highlights the lines of a file view.
  function highlightLines() {
    var match = /^#L(\d+)(?:-L(\d+))?$/.exec(location.hash);
    document.querySelectorAll('.blob tr.selected').forEach(function (row) {
      row.classList.remove('selected');
    });
    if (!match) return;
    var from = Number(match[1]);
    var to = Number(match[2] || match[1]);
    for (var n = Math.min(from, to); n <= Math.max(from, to); n++) {
      var row = document.getElementById('L' + n);
      if (row) row.closest('tr').classList.add('selected');
    }
    var first = document.getElementById('L' + Math.min(from, to));
    if (first) first.scrollIntoView({ block: 'center' });
  }
  window.addEventListener('hashchange', highlightLines);
  document.addEventListener('DOMContentLoaded', highlightLines);

  // Markdown preview: <button data-preview="textarea-id" data-target="div-id" data-context="owner/repo">.
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('[data-preview]');
    if (!button) return;
    event.preventDefault();
    var text = document.getElementById(button.getAttribute('data-preview'));
    var target = document.getElementById(button.getAttribute('data-target'));
    var csrf = document.querySelector('input[name=_csrf]');
    var body = new URLSearchParams({ text: text.value, context: button.getAttribute('data-context') || '' });
    fetch('/-/markdown', { method: 'POST', headers: { 'X-CSRF-Token': csrf ? csrf.value : '' }, body: body, credentials: 'same-origin' })
      .then(function (response) {
        return response.text();
      })
      .then(function (html) {
        target.innerHTML = html;
        target.hidden = false;
      });
  });

  // Issues: Preview buttons only do something with this script, so they are shown by it; the
  // close/reopen button says "Close" for an empty comment and "Close with comment" otherwise.
  function issueForms() {
    document.querySelectorAll('[data-preview][hidden]').forEach(function (button) {
      button.hidden = false;
    });
    document.querySelectorAll('[data-state-button][data-watch]').forEach(function (button) {
      var text = document.getElementById(button.getAttribute('data-watch'));
      if (!text) return;
      var verb = button.getAttribute('data-state-button');
      var update = function () {
        button.textContent = text.value.trim() ? verb + ' with comment' : verb;
      };
      text.addEventListener('input', update);
      update();
    });
  }
  document.addEventListener('DOMContentLoaded', issueForms);
})();

// Repository file views: shift-click a line number to select the range from the selected line (#L10-L20).
(function () {
  'use strict';
  document.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('.blob td.num a[id^="L"]');
    var match = /^#L(\d+)/.exec(location.hash);
    if (!link || !event.shiftKey || !match) return;
    event.preventDefault();
    var from = Number(match[1]);
    var to = Number(link.id.slice(1));
    location.hash = '#L' + Math.min(from, to) + '-L' + Math.max(from, to);
  });
})();

// Access tokens (/user/settings/applications): the scope warning shows while no scope is chosen,
// and a form without any scope is not sent (the server refuses it too, with the same warning).
(function () {
  'use strict';
  function scopeForms() {
    document.querySelectorAll('form[data-scope-form]').forEach(function (form) {
      var warning = document.getElementById(form.getAttribute('data-scope-form'));
      var selects = form.querySelectorAll('select[name=scope]');
      if (!warning || !selects.length) return;
      var chosen = function () {
        return Array.prototype.some.call(selects, function (select) {
          return select.value !== '';
        });
      };
      form.addEventListener('change', function () {
        warning.hidden = chosen();
        if (warning.hidden) warning.classList.remove('refused');
      });
      form.addEventListener('submit', function (event) {
        if (chosen()) return;
        event.preventDefault();
        warning.hidden = false;
        warning.classList.add('refused');
        warning.scrollIntoView({ block: 'center' });
        var first = Array.prototype.find.call(selects, function (select) {
          return !select.disabled;
        });
        if (first) first.focus();
      });
      warning.hidden = chosen();
    });
  }
  document.addEventListener('DOMContentLoaded', scopeForms);
})();
