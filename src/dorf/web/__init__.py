"""The browser UI of ``dorf serve``: static HTML, CSS, JavaScript modules and SVG, no build step."""
