//! The attention heatmap: row i is position i's query over positions 0..=i, one cell per
//! weight, coloured on a square-root scale (most weights are tiny next to a few large
//! ones). Cells are SVG rects, written as one string (thousands of them), each carrying
//! `data-row`, `data-col` and `data-weight`. One focus stop: arrow keys move a cursor, and
//! hovering a cell moves it too; the readout names both tokens and the weight.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Space for the token labels left of and above the cells.
const LABEL: f64 = 96.0;

/// The cells' colour for weight `w`: near-white to dark blue, on √w.
pub fn colour(w: f32) -> String {
    let t = w.clamp(0.0, 1.0).sqrt();
    let mix = |a: f32, b: f32| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(247.0, 8.0),
        mix(251.0, 48.0),
        mix(255.0, 107.0)
    )
}

/// Text for SVG: the token labels are the learner's own text.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\n', "↵")
}

/// What the map draws: one head's rows by position (`None`: not computed in this turn and
/// not kept from an earlier one), the token labels, and which rows are the prompt's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Map {
    pub tokens: Vec<String>,
    pub rows: Vec<Option<Vec<f32>>>,
    pub prompt_len: usize,
    /// Leading positions read from the cache in this turn.
    pub reused: usize,
}

fn cells(map: &Map, cell: f64) -> String {
    let n = map.rows.len();
    let mut out = String::with_capacity(n * n * 40);
    for (i, row) in map.rows.iter().enumerate() {
        let y = LABEL + i as f64 * cell;
        let token = escape(map.tokens.get(i).map_or("", String::as_str));
        let mut class = if i < map.prompt_len {
            "row-label"
        } else {
            "row-label decode"
        }
        .to_string();
        if i < map.reused {
            class.push_str(" reused");
        }
        out += &format!(
            r#"<text x="{}" y="{}" text-anchor="end" class="{class}">{token}</text>"#,
            LABEL - 4.0,
            y + cell * 0.8
        );
        out += &format!(
            r#"<text class="col-label" transform="translate({} {}) rotate(-90)">{token}</text>"#,
            LABEL + i as f64 * cell + cell * 0.8,
            LABEL - 4.0
        );
        match row {
            Some(weights) => {
                for (j, &w) in weights.iter().enumerate().take(i + 1) {
                    out += &format!(
                        r#"<rect x="{}" y="{y}" width="{cell}" height="{cell}" fill="{}" data-row="{i}" data-col="{j}" data-weight="{w:.5}"/>"#,
                        LABEL + j as f64 * cell,
                        colour(w)
                    );
                }
            }
            None => {
                out += &format!(
                    r#"<rect x="{LABEL}" y="{y}" width="{}" height="{cell}" class="row-missing"/>"#,
                    (i + 1) as f64 * cell
                )
            }
        }
    }
    out
}

#[component]
pub fn AttentionMap(
    #[prop(into)] map: Signal<Map>,
    /// Pixels per cell (the zoom).
    #[prop(into)]
    cell: Signal<f64>,
    /// Says which layer and head, for screen readers.
    #[prop(into)]
    caption: Signal<String>,
) -> impl IntoView {
    // The cursor: (row, column), always on or below the diagonal.
    let cursor = RwSignal::new(None::<(usize, usize)>);
    let size = move || map.with(|m| m.rows.len());
    Effect::new(move |_| {
        let n = size();
        cursor.update(|c| {
            if c.is_some_and(|(r, _)| r >= n) {
                *c = None;
            }
        });
    });
    let weight = move |r: usize, c: usize| {
        map.with(|m| {
            m.rows
                .get(r)
                .and_then(|row| row.as_ref())
                .and_then(|w| w.get(c).copied())
        })
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let n = size();
        if n == 0 {
            return;
        }
        let (r, c) = cursor.get_untracked().unwrap_or((0, 0));
        let next = match ev.key().as_str() {
            "ArrowUp" => (r.saturating_sub(1), c.min(r.saturating_sub(1))),
            "ArrowDown" => ((r + 1).min(n - 1), c),
            "ArrowLeft" => (r, c.saturating_sub(1)),
            "ArrowRight" => (r, (c + 1).min(r)),
            "Home" => (r, 0),
            "End" => (r, r),
            _ => return,
        };
        ev.prevent_default();
        cursor.set(Some(next));
    };
    let on_hover = move |ev: web_sys::PointerEvent| {
        let cell = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        let at = |name| cell.as_ref()?.get_attribute(name)?.parse::<usize>().ok();
        if let (Some(r), Some(c)) = (at("data-row"), at("data-col")) {
            cursor.set(Some((r, c)));
        }
    };
    let readout = move || {
        match cursor.get() {
        None => "Point at a cell, or focus the map and use the arrow keys.".to_string(),
        Some((r, c)) => map.with(|m| {
            let t = |i: usize| m.tokens.get(i).map_or(String::new(), |s| s.replace('\n', "↵"));
            match weight(r, c) {
                Some(w) => format!("“{}” (position {r}) attends to “{}” (position {c}) with weight {w:.4}", t(r), t(c)),
                None => format!("Position {r} (“{}”) was read from the cache: its row was computed in an earlier turn on another layer.", t(r)),
            }
        }),
    }
    };
    let extent = move || LABEL + size() as f64 * cell.get() + 4.0;
    let marker = move || {
        let (r, c) = cursor.get()?;
        let s = cell.get();
        Some(
            view! { <rect class="cursor" x=LABEL + c as f64 * s y=LABEL + r as f64 * s width=s height=s/> },
        )
    };
    view! {
        <div class="attention-scroll">
            <svg
                data-testid="attention-map"
                data-rows=size
                class=move || if cell.get() < 9.0 { "attention-map small" } else { "attention-map" }
                width=extent height=extent viewBox=move || format!("0 0 {0} {0}", extent())
                role="img" aria-label=move || caption.get() tabindex="0"
                on:keydown=on_key on:pointerover=on_hover
            >
                <g inner_html=move || map.with(|m| cells(m, cell.get()))></g>
                {marker}
            </svg>
        </div>
        <p class="attention-readout" aria-live="polite" data-testid="attention-readout">{readout}</p>
        <Legend/>
    }
}

/// The colour scale: a strip of the map's colours with weights marked where they fall on √w.
#[component]
fn Legend() -> impl IntoView {
    const W: f64 = 240.0;
    let steps = (0..48).map(|i| {
        let t = i as f64 / 48.0;
        view! { <rect x=t * W y="0" width=W / 48.0 + 0.5 height="12" fill=colour((t * t) as f32)/> }
    });
    let ticks = [0.0, 0.05, 0.25, 0.5, 1.0].map(|w: f64| {
        let x = w.sqrt() * W;
        view! {
            <line x1=x x2=x y1="12" y2="16" class="axis"/>
            <text x=x y="27" text-anchor="middle" class="tick">{format!("{w}")}</text>
        }
    });
    view! {
        <figure class="attention-legend">
            <svg width=W + 20.0 height="30" viewBox=format!("-10 0 {} 30", W + 20.0) role="img" aria-label="Colour scale: weight 0 is white, weight 1 dark blue, on a square-root scale">
                {steps.collect_view()}
                {ticks.into_iter().collect_view()}
            </svg>
            <figcaption>"Attention weight (square-root scale: small weights stay visible)"</figcaption>
        </figure>
    }
}
