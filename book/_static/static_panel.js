/* Static panels (book/static_panels.py): each control of a .lsl-static-panel picks one of the
   figures rendered when the site was built. The panel's JSON script says which frame shows which
   combination: "frames" maps the varying controls' indices, joined by commas, to an image URL;
   "controls" lists those controls (name, description, labels) in that order. No library, no
   network: the frames are files of the site. */
(function () {
  "use strict";

  function setUp(panel) {
    var script = panel.querySelector("script.lsl-static-frames");
    var img = panel.querySelector("img.lsl-static-figure");
    if (!script || !img) {
      return;
    }
    var data = JSON.parse(script.textContent);
    var controls = data.controls.map(function (spec) {
      var input = panel.querySelector('.lsl-static-control[data-name="' + spec.name + '"]');
      var label = input.closest(".lsl-static-label");
      return {spec: spec, input: input,
              readout: label ? label.querySelector(".lsl-static-readout") : null};
    });

    function position(control) {
      if (control.input.type === "checkbox") {
        return control.input.checked ? 1 : 0;
      }
      return parseInt(control.input.value, 10);
    }

    function update() {
      var indices = controls.map(position);
      controls.forEach(function (control, i) {
        if (control.readout) {
          control.readout.textContent = control.spec.labels[indices[i]];
        }
      });
      var src = data.frames[indices.join(",")];
      if (src) {
        img.src = src;
        img.alt = "Figure of the panel of " + data.stem + " for " + controls.map(
          function (control, i) {
            return control.spec.description + " = " + control.spec.labels[indices[i]];
          }).join(", ");
      }
    }

    controls.forEach(function (control) {
      control.input.addEventListener("input", update);
      control.input.addEventListener("change", update);
    });
    update();
  }

  function setUpAll() {
    Array.prototype.forEach.call(document.querySelectorAll(".lsl-static-panel"), setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpAll);
  } else {
    setUpAll();
  }
})();
