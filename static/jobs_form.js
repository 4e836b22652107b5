// pragmalab: the scoring form shows only the fields the chosen task,
// scorer and mode use (docs/scoring.md#the-launch-form). Without JavaScript every field shows
// and the server ignores those that do not apply.
(function () {
	"use strict";
	var form = document.querySelector("form[data-fields-follow]");
	if (!form) return;
	function value(name) {
		var el = form.elements[name];
		return el ? el.value : "";
	}
	function update() {
		var now = { task: value("task"), scorer: value("scorer"), mode: value("mode") };
		form.querySelectorAll("[data-show-task],[data-show-scorer],[data-show-mode],[data-hide-task]").forEach(function (el) {
			var show = true;
			["task", "scorer", "mode"].forEach(function (k) {
				var want = el.getAttribute("data-show-" + k);
				if (want !== null && want.split(" ").indexOf(now[k]) < 0) show = false;
			});
			var not = el.getAttribute("data-hide-task");
			if (not !== null && not.split(" ").indexOf(now.task) >= 0) show = false;
			el.hidden = !show;
		});
	}
	form.addEventListener("change", update);
	update();
})();
