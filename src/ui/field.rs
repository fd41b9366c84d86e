//! A labelled control for one number: a range slider with its live readout, or a number box
//! (whole or decimal). Each acts on every `input` event and carries its hint. A slider cannot
//! be moved out of range (a value set through devtools is clamped, so the engine never sees
//! it); a number box refuses an entry out of range and says so.

use leptos::prelude::*;

/// A range input for a value in `min..=max`. `id` is also the `data-testid` unless
/// `testid` is given; the readout's test id is `{testid}-value`. Children are the hint.
#[component]
pub fn Slider(
    id: &'static str,
    #[prop(optional)] testid: Option<&'static str>,
    label: &'static str,
    min: f64,
    max: f64,
    step: f64,
    #[prop(into)] value: Signal<f64>,
    #[prop(into)] set: Callback<f64>,
    readout: fn(f64) -> String,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let testid = testid.unwrap_or(id);
    let input = move |described| {
        view! {
            <input
                id=id
                data-testid=testid
                type="range"
                min=min
                max=max
                step=step
                aria-describedby=described
                prop:value=move || (value.get() as f32).to_string()
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                        if v.is_finite() {
                            set.run(v.clamp(min, max))
                        }
                    }
                }
            />
            <output for=id data-testid=format!("{testid}-value")>{move || readout(value.get())}</output>
        }
    };
    control(id, label, input, children)
}

/// A number input for a whole number in `min..=max`; an entry out of range is refused with
/// a message naming the range, and the value stays as it was. Children are the hint.
#[component]
pub fn WholeNumber(
    id: &'static str,
    label: &'static str,
    min: u64,
    max: u64,
    #[prop(into)] value: Signal<u64>,
    #[prop(into)] set: Callback<u64>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    control(
        id,
        label,
        move |described| whole_number_input(id, min, max, value, set, described),
        children,
    )
}

/// The bare number input of `WholeNumber`, for rows laid out otherwise. An entry that is not
/// a whole number in range is refused, not repaired: the box keeps what was typed, says the
/// range, and the value in use stays as it was until a valid number is typed.
pub fn whole_number_input(
    id: &str,
    min: u64,
    max: u64,
    value: Signal<u64>,
    set: Callback<u64>,
    described: Option<String>,
) -> impl IntoView {
    let range = Range { min: min as f64, max: max as f64, step: 1.0, whole: true };
    let value = Signal::derive(move || value.get() as f64);
    let set = Callback::new(move |v: f64| set.run(v as u64));
    refusing_input(id, range, value, set, described)
}

/// The bare number input for a decimal in `min..=max` (the spinner moves by `step`), refused
/// out of range as `whole_number_input` refuses: never clamped or rounded into range. The
/// value is shown as the nearest `f32`, as the sampler keeps its settings, so 0.7 reads 0.7.
pub fn decimal_input(
    id: &str,
    min: f64,
    max: f64,
    step: f64,
    value: Signal<f64>,
    set: Callback<f64>,
    described: Option<String>,
) -> impl IntoView {
    refusing_input(id, Range { min, max, step, whole: false }, value, set, described)
}

/// What a refusing number box accepts.
#[derive(Clone, Copy)]
struct Range {
    min: f64,
    max: f64,
    step: f64,
    whole: bool,
}

impl Range {
    /// The number `text` means, if it is one this box accepts. As the browser reads a number
    /// box: "1e3" is 1000, "12.0" is 12.
    fn accepts(self, text: &str) -> Option<f64> {
        let v = text.trim().parse::<f64>().ok()?;
        let whole = !self.whole || v.fract() == 0.0;
        (whole && (self.min..=self.max).contains(&v)).then_some(v)
    }

    fn show(self, v: f64) -> String {
        if self.whole {
            v.to_string()
        } else {
            (v as f32).to_string()
        }
    }

    /// What a refused entry gets: the range, and the value still in use.
    fn refusal(self, text: &str, in_use: f64) -> String {
        let shown = if text.trim().is_empty() { "that" } else { text.trim() };
        let what = if self.whole { "a whole number" } else { "a number" };
        let (min, max, in_use) = (self.show(self.min), self.show(self.max), self.show(in_use));
        format!("Not used: {shown} is not {what} from {min} to {max}. Still {in_use}.")
    }
}

/// A number box that refuses an entry outside `range` with a message naming it, and keeps
/// the value in use until a valid one is typed.
fn refusing_input(
    id: &str,
    range: Range,
    value: Signal<f64>,
    set: Callback<f64>,
    described: Option<String>,
) -> impl IntoView {
    let refused = RwSignal::new(None::<String>);
    let error_id = format!("{id}-error");
    let described = match described {
        Some(hint) => format!("{hint} {error_id}"),
        None => error_id.clone(),
    };
    view! {
        <input
            id=id.to_string()
            data-testid=id.to_string()
            type="number"
            min=range.min
            max=range.max
            step=range.step
            inputmode=if range.whole { "numeric" } else { "decimal" }
            aria-describedby=described
            aria-invalid=move || refused.with(Option::is_some).then_some("true")
            prop:value=move || range.show(value.get())
            on:input=move |ev| {
                let text = event_target_value(&ev);
                match range.accepts(&text) {
                    Some(v) => {
                        refused.set(None);
                        set.run(v)
                    }
                    // A box being cleared to type a new number is not an entry yet.
                    None if text.is_empty() => refused.set(None),
                    None => refused.set(Some(range.refusal(&text, value.get_untracked()))),
                }
            }
            // Leaving the box shows the value in use (a cleared box), unless the entry was
            // refused: then its text and the message stay until it is corrected.
            on:change=move |ev| {
                if refused.with_untracked(Option::is_none) {
                    event_target::<web_sys::HtmlInputElement>(&ev).set_value(&range.show(value.get_untracked()))
                }
            }
        />
        <small class="error refusal" id=error_id.clone() data-testid=error_id role="alert" hidden=move || refused.with(Option::is_none)>
            {move || refused.get()}
        </small>
    }
}

/// A number box whose text is kept as typed, for a form that checks its fields together
/// and says what is wrong with each (Lesson 3's experiment). Children are the hint.
#[component]
pub fn NumberText(
    id: &'static str,
    testid: &'static str,
    label: &'static str,
    min: u64,
    #[prop(optional)] max: Option<u64>,
    value: RwSignal<String>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let input = move |described| {
        view! {
            <input
                id=id
                data-testid=testid
                type="number"
                min=min
                max=max
                inputmode="numeric"
                aria-describedby=described
                prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))
            />
        }
    };
    control(id, label, input, children)
}

/// The label, the input (given the id of the hint that describes it, if any) and the hint.
fn control<V: IntoView>(
    id: &'static str,
    label: &'static str,
    input: impl FnOnce(Option<String>) -> V,
    hint: Option<Children>,
) -> impl IntoView {
    let hint_id = format!("{id}-hint");
    let described = hint.is_some().then(|| hint_id.clone());
    view! {
        <div class="control">
            <label for=id>{label}</label>
            {input(described)}
            {hint.map(|text| view! { <small id=hint_id>{text()}</small> })}
        </div>
    }
}

/// A label and a whole-number box for a count kept as `usize`, in rows laid out otherwise.
pub fn count_input(
    id: &'static str,
    label: &'static str,
    value: RwSignal<usize>,
    min: usize,
    max: usize,
) -> impl IntoView {
    let get = Signal::derive(move || value.get() as u64);
    let set = Callback::new(move |n: u64| value.set(n as usize));
    view! {
        <label for=id>{label}</label>
        {whole_number_input(id, min as u64, max as u64, get, set, None)}
    }
}

#[cfg(test)]
mod tests {
    use super::Range;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn an_entry_out_of_range_or_not_whole_is_refused_with_its_range_never_clamped() {
        let temperature = Range { min: 0.0, max: 2.0, step: 0.05, whole: false };
        assert_eq!(temperature.accepts("1.25"), Some(1.25));
        assert_eq!(temperature.accepts(" 2 "), Some(2.0));
        for refused in ["5", "-0.1", "2.0001", "NaN", "inf", "abc", ""] {
            assert_eq!(temperature.accepts(refused), None, "{refused}");
        }
        // The in-use value is an f32 setting: shown as 0.7, not 0.699999988079071.
        assert_eq!(temperature.refusal("5", 0.7f32 as f64), "Not used: 5 is not a number from 0 to 2. Still 0.7.");
        let top_k = Range { min: 0.0, max: 100.0, step: 1.0, whole: true };
        assert_eq!(top_k.accepts("1e1"), Some(10.0));
        assert_eq!(top_k.accepts("2.5"), None, "not rounded");
        assert_eq!(top_k.refusal("2.5", 0.0), "Not used: 2.5 is not a whole number from 0 to 100. Still 0.");
        let seed = Range { min: 0.0, max: u32::MAX as f64, step: 1.0, whole: true };
        assert_eq!(seed.refusal("-1", 42.0), "Not used: -1 is not a whole number from 0 to 4294967295. Still 42.");
    }
}
