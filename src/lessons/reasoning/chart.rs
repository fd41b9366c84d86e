//! What the two charts share: the plot area inside a fixed viewBox (the SVG scales to its
//! container), a token axis with round ticks, and the legend. Colours come from classes
//! (`series-<strategy>`), since the page's CSP allows no inline styles.

use super::names;
use crate::ui::chart::ticks::nice_step;
use engine::reasoning::strategy::Strategy;
use leptos::prelude::*;

pub const WIDTH: f64 = 640.0;
/// Room for the value labels, which a phone's CSS draws larger.
pub const LEFT: f64 = 84.0;
pub const RIGHT: f64 = 24.0;
pub const TOP: f64 = 16.0;
/// Room for the tick labels and the axis title.
pub const BOTTOM: f64 = 52.0;

/// The x axis for token counts from 0 to at least `max`: its end and ticks at round numbers.
pub fn token_ticks(max: f64) -> (f64, Vec<f64>) {
    let max = max.max(1.0);
    // Token counts are whole, so ticks are too.
    let step = nice_step(max / 4.0).max(1.0);
    let end = (max / step).ceil() * step;
    let ticks = (0..=(end / step).round() as usize)
        .map(|i| i as f64 * step)
        .collect();
    (end, ticks)
}

/// Where token count `t` goes on an axis ending at `end`.
pub fn x_of(t: f64, end: f64) -> f64 {
    LEFT + t / end * (WIDTH - LEFT - RIGHT)
}

/// The token axis along the bottom of a plot `height` tall, with its title.
#[component]
pub fn TokenAxis(end: f64, ticks: Vec<f64>, height: f64, title: &'static str) -> impl IntoView {
    let base = height - BOTTOM;
    let labels = ticks
        .into_iter()
        .map(|t| {
            let x = x_of(t, end);
            view! {
                <line class="grid" x1=x y1=TOP x2=x y2=base></line>
                <text class="tick" x=x y=base + 18.0 text-anchor="middle">{format!("{t}")}</text>
            }
        })
        .collect_view();
    view! {
        <line class="axis" x1=LEFT y1=base x2=WIDTH - RIGHT y2=base></line>
        {labels}
        <text class="axis-title" x=(LEFT + WIDTH - RIGHT) / 2.0 y=height - 8.0 text-anchor="middle">{title}</text>
    }
}

/// Grid lines at 0, 25, 50, 75 and 100%, labelled, for a plot that draws accuracy `a` at
/// height `y_of(a)`.
pub fn percent_grid(y_of: impl Fn(f64) -> f64) -> impl IntoView {
    [0.0, 0.25, 0.5, 0.75, 1.0]
        .map(|a| {
            let y = y_of(a);
            view! {
                <line class="grid" x1=LEFT y1=y x2=WIDTH - RIGHT y2=y></line>
                <text class="tick" x=LEFT - 8.0 y=y + 4.0 text-anchor="end">{format!("{:.0}%", a * 100.0)}</text>
            }
        })
        .collect_view()
}

/// An accuracy at height `y` with its 95% interval from `low` to `high` (heights too): a
/// vertical bar with caps, and the point.
pub fn interval_point(x: f64, y: f64, low: f64, high: f64) -> impl IntoView {
    view! {
        <line class="interval" x1=x y1=low x2=x y2=high></line>
        <line class="interval" x1=x - 5.0 y1=low x2=x + 5.0 y2=low></line>
        <line class="interval" x1=x - 5.0 y1=high x2=x + 5.0 y2=high></line>
        <circle class="point" cx=x cy=y r="6"></circle>
    }
}

#[component]
pub fn Legend(strategies: Vec<Strategy>, samples: usize) -> impl IntoView {
    view! {
        <ul class="legend">
            {strategies
                .into_iter()
                .map(|s| {
                    view! {
                        <li>
                            <span class=format!("swatch series-{}", names::id(s)) aria-hidden="true"></span>
                            {names::name_with_samples(s, samples)}
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}
