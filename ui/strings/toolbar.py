"""The chart toolbar (plotly's mode bar) and its messages: id → (English, 中文).

The English of each id is plotly.js's own text, letter for letter: it is the key that plotly.js looks
up in a locale's dictionary (ui.plot.toolbar_dictionary), so it must not be reworded. The SVG
button is the lab's own (viz_core.export.SVG_TITLE); the full-screen button's tooltip is plot.fullscreen.
"""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # mode-bar buttons of a 2-d chart
    "toolbar.png": ("Download plot as a PNG", "下载图表（PNG）"),
    "toolbar.image": ("Download plot", "下载图表"),
    "toolbar.svg": ("Download plot as an SVG", "下载图表（SVG）"),
    "toolbar.zoom": ("Zoom", "框选缩放"),
    "toolbar.pan": ("Pan", "平移"),
    "toolbar.box_select": ("Box Select", "框选"),
    "toolbar.lasso_select": ("Lasso Select", "套索选择"),
    "toolbar.zoom_in": ("Zoom in", "放大"),
    "toolbar.zoom_out": ("Zoom out", "缩小"),
    "toolbar.autoscale": ("Autoscale", "自动缩放"),
    "toolbar.reset_axes": ("Reset axes", "重置坐标轴"),
    "toolbar.reset_view": ("Reset view", "重置视图"),
    "toolbar.reset_views": ("Reset views", "重置所有视图"),
    "toolbar.reset": ("Reset", "重置"),
    "toolbar.spikes": ("Toggle Spike Lines", "显示或隐藏参考线"),
    "toolbar.hover_closest": ("Show closest data on hover", "悬停时显示最近的数据"),
    "toolbar.hover_compare": ("Compare data on hover", "悬停时比较数据"),
    "toolbar.hover_toggle": ("Toggle show closest data on hover", "切换悬停时显示最近的数据"),
    # plotly's notices while it makes an image or after a zoom
    "toolbar.preparing": ("Preparing image - this may take a few seconds", "正在生成图片，可能需要几秒钟"),
    "toolbar.image_done": ("Image download succeeded", "图片已下载"),
    "toolbar.image_failed": ("Sorry, there was a problem downloading your image!", "下载图片时出现问题！"),
    "toolbar.zoom_back": ("Double-click to zoom back out", "双击可恢复原来的缩放"),
    "toolbar.legend_isolate": ("Double-click on legend to isolate one trace", "双击图例可只显示这一组数据"),
}
