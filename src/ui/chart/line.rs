//! A small line chart in inline SVG: axes with round ticks, one polyline and one dot per
//! point for each series. Every dot carries its numbers (`data-x`, `data-y`, a tooltip), so
//! the chart is also readable by a test. No styles inline: colours come from the series'
//! class (the page's CSP allows style sheets only).

use super::ticks::{label, ticks};
use leptos::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: &'static str,
    /// `series-a` or `series-b`: the colour in the style sheet.
    pub class: &'static str,
    pub points: Vec<(f64, f64)>,
}

const W: f64 = 420.0;
const H: f64 = 240.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 44.0;

#[component]
pub fn LineChart(
    testid: &'static str,
    /// What the chart shows, for screen readers and as its caption.
    caption: &'static str,
    x_label: &'static str,
    y_label: &'static str,
    #[prop(into)] series: Signal<Vec<Series>>,
) -> impl IntoView {
    let legend = move || {
        series
            .get()
            .into_iter()
            .filter(|s| !s.points.is_empty())
            .map(|s| view! { <span class=format!("legend {}", s.class)>{s.name}</span> })
            .collect_view()
    };
    view! {
        <figure class="chart">
            <svg
                viewBox=format!("0 0 {W} {H}")
                role="img"
                aria-label=caption
                data-testid=testid
                data-points=move || series.with(|s| s.iter().map(|s| s.points.len()).sum::<usize>())
            >
                {move || plot(&series.get(), x_label, y_label)}
            </svg>
            <figcaption>{caption}<span class="legends">{legend}</span></figcaption>
        </figure>
    }
}

fn plot(series: &[Series], x_label: &'static str, y_label: &'static str) -> AnyView {
    let all: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .collect();
    if all.is_empty() {
        return view! {
            <text x=W / 2.0 y=H / 2.0 text-anchor="middle" class="chart-empty">"Nothing measured yet"</text>
        }
        .into_any();
    }
    let x_min = all.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x_max = all.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let y_max = all.iter().map(|p| p.1).fold(0.0, f64::max);
    let xs = ticks(x_min, x_max.max(x_min + 1.0));
    let ys = ticks(0.0, if y_max > 0.0 { y_max } else { 1.0 });
    let (x0, x1) = (xs[0], *xs.last().unwrap_or(&1.0));
    let (y0, y1) = (ys[0], *ys.last().unwrap_or(&1.0));
    let sx = move |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
    let sy = move |y: f64| H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM);
    let x_ticks = xs
        .iter()
        .map(|&x| view! { <text x=sx(x) y=H - BOTTOM + 16.0 text-anchor="middle" class="tick">{label(x, &xs)}</text> })
        .collect_view();
    let y_ticks = ys
        .iter()
        .map(|&y| {
            view! {
                <line x1=LEFT x2=W - RIGHT y1=sy(y) y2=sy(y) class="grid"/>
                <text x=LEFT - 6.0 y=sy(y) + 4.0 text-anchor="end" class="tick">{label(y, &ys)}</text>
            }
        })
        .collect_view();
    let lines = series
        .iter()
        .map(|s| {
            let points = s.points.iter().map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y))).collect::<Vec<_>>().join(" ");
            let dots = s
                .points
                .iter()
                .map(|&(x, y)| {
                    view! {
                        <circle cx=sx(x) cy=sy(y) r="3" data-x=x data-y=y>
                            <title>{format!("{}: {x_label} {}, {y_label} {}", s.name, label(x, &xs), precise(y))}</title>
                        </circle>
                    }
                })
                .collect_view();
            view! {
                <g class=format!("series {}", s.class) data-series=s.name>
                    <polyline points=points fill="none"/>
                    {dots}
                </g>
            }
        })
        .collect_view();
    view! {
        {y_ticks}
        {x_ticks}
        <line x1=LEFT x2=W - RIGHT y1=H - BOTTOM y2=H - BOTTOM class="axis"/>
        <line x1=LEFT x2=LEFT y1=TOP y2=H - BOTTOM class="axis"/>
        <text x=(LEFT + W - RIGHT) / 2.0 y=H - 6.0 text-anchor="middle" class="axis-label">{x_label}</text>
        <text x=14 y=(TOP + H - BOTTOM) / 2.0 text-anchor="middle" class="axis-label" transform=format!("rotate(-90 14 {})", (TOP + H - BOTTOM) / 2.0)>
            {y_label}
        </text>
        {lines}
    }
    .into_any()
}

fn precise(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}
