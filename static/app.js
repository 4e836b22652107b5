// pragmalab: keyboard shortcuts on answer forms. Everything works without
// this script; it only saves keystrokes.
(function () {
	"use strict";
	function typing(e) {
		var t = e.target;
		return t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "radio" && t.type !== "checkbox") || t.tagName === "SELECT");
	}
	document.addEventListener("keydown", function (e) {
		if (e.ctrlKey || e.metaKey || e.altKey || typing(e)) return;
		var form = document.querySelector("form[data-keys]");
		if (!form) return;
		var mode = form.getAttribute("data-keys");
		var key = e.key.toLowerCase();
		if (mode === "yn") {
			var val = (key === "y" || key === "s") ? "yes" : key === "n" ? "no" : "";
			if (!val) return;
			// The current question is the first one without an answer; once
			// all are answered, Y/N change the last one.
			var qs = form.querySelectorAll("fieldset.q");
			var q = null;
			for (var i = 0; i < qs.length; i++) {
				if (!qs[i].querySelector("input:checked")) { q = qs[i]; break; }
			}
			if (!q) q = qs[qs.length - 1];
			var input = q.querySelector('input[value="' + val + '"]');
			if (input) { input.checked = true; input.focus(); e.preventDefault(); }
			return;
		}
		if (/^[1-9]$/.test(key)) {
			var radio = form.querySelector('input[type=radio][value="' + key + '"]');
			if (radio) {
				radio.checked = true;
				radio.focus();
				e.preventDefault();
				if (mode === "submit-on-digit") {
					var b = form.querySelector("button[type=submit]:not([name])") || form.querySelector("button[type=submit]");
					if (form.requestSubmit) form.requestSubmit(b); else form.submit();
				}
			}
		}
	});
})();
