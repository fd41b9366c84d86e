//! The softmax with temperature in MathML, and beside it the same formula with the live
//! numbers of one candidate (the one last hovered or focused, else the most likely), then
//! its renormalisation after the cuts.

use crate::ui::format::{count, prob};
use super::live::Live;
use crate::ui::token_text::visible;
use leptos::prelude::*;

const GENERAL: &str = r#"<math display="block"><msub><mi>p</mi><mi>i</mi></msub><mo>=</mo><mfrac><mrow><mi>exp</mi><mo>&#x2061;</mo><mo>(</mo><msub><mi>z</mi><mi>i</mi></msub><mo>/</mo><mi>T</mi><mo>)</mo></mrow><mrow><munder><mo>&#x2211;</mo><mi>j</mi></munder><mi>exp</mi><mo>&#x2061;</mo><mo>(</mo><msub><mi>z</mi><mi>j</mi></msub><mo>/</mo><mi>T</mi><mo>)</mo></mrow></mfrac><mo>=</mo><mfrac><mrow><mi>exp</mi><mo>&#x2061;</mo><mo>(</mo><mo>(</mo><msub><mi>z</mi><mi>i</mi></msub><mo>&#x2212;</mo><msub><mi>z</mi><mi>max</mi></msub><mo>)</mo><mo>/</mo><mi>T</mi><mo>)</mo></mrow><mrow><munder><mo>&#x2211;</mo><mi>j</mi></munder><mi>exp</mi><mo>&#x2061;</mo><mo>(</mo><mo>(</mo><msub><mi>z</mi><mi>j</mi></msub><mo>&#x2212;</mo><msub><mi>z</mi><mi>max</mi></msub><mo>)</mo><mo>/</mo><mi>T</mi><mo>)</mo></mrow></mfrac></math>"#;

#[component]
pub fn Formula() -> impl IntoView {
    let lesson = expect_context::<Live>();
    let live = move || {
        let t = lesson.settings.with(|s| s.temperature);
        let selected = lesson.selected.get();
        lesson.snapshot.with(|snap| {
            let snap = snap.as_ref()?;
            let top = snap.top.first()?;
            let c = selected.and_then(|id| snap.top.iter().find(|c| c.id == id)).unwrap_or(top);
            let name = visible(&lesson.text(c.id));
            if t == 0.0 {
                return Some(format!(
                    "<p>T = 0 is greedy: there is no softmax. The most likely token gets probability 1 and every other one 0; ‘{}’ gets {}.</p>",
                    escape(&name),
                    c.final_prob
                ));
            }
            // The most likely candidate's term is exp(0) = 1, so its probability is 1 / sum.
            let sum = 1.0 / top.prob as f64;
            let mut html = format!(
                r#"<math display="block"><msub><mi>p</mi><mtext>{name}</mtext></msub><mo>=</mo><mfrac><mrow><mi>exp</mi><mo>&#x2061;</mo><mo>(</mo><mo>(</mo><mn>{z:.2}</mn><mo>&#x2212;</mo><mn>{zmax:.2}</mn><mo>)</mo><mo>/</mo><mn>{t:.2}</mn><mo>)</mo></mrow><mn>{sum:.4}</mn></mfrac><mo>=</mo><mn>{p}</mn></math>"#,
                name = escape(&name),
                z = c.penalized,
                zmax = top.penalized,
                p = prob(c.prob as f64),
            );
            html.push_str(&match c.cut_by {
                None => format!(
                    r#"<math display="block"><msub><mi>p</mi><mtext>final</mtext></msub><mo>=</mo><mfrac><mn>{}</mn><mn>{:.4}</mn></mfrac><mo>=</mo><mn>{}</mn></math>"#,
                    prob(c.prob as f64),
                    snap.eligible_mass,
                    prob(c.final_prob as f64)
                ),
                Some(stage) => format!("<p>Cut by {}: its final probability is 0.</p>", stage.name()),
            });
            html.push_str(&format!(
                "<p class=\"hint\">The sum runs over all {} tokens; subtracting the largest logit changes nothing (it cancels) and keeps exp from overflowing. The final probability divides by the mass of the {} eligible tokens.</p>",
                count(snap.vocab),
                count(snap.eligible)
            ));
            Some(html)
        })
    };
    view! {
        <section class="formula" aria-labelledby="formula-title">
            <h3 id="formula-title">"Softmax with temperature"</h3>
            <div class="formula-general" inner_html=GENERAL></div>
            <div class="formula-live" data-testid="formula-live" inner_html=move || live().unwrap_or_default()></div>
        </section>
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
