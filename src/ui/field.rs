//! A labelled control for one number: a range slider with its live readout, or a whole-
//! number box. Each acts on every `input` event, keeps its value in range (a value typed
//! through devtools, say, is clamped, so the engine never sees it) and carries its hint.

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

/// A number input for a whole number in `min..=max`; a half-typed entry leaves the value
/// as it was, an out-of-range one is clamped. Children are the hint.
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

/// The bare number input of `WholeNumber`, for rows laid out otherwise.
pub fn whole_number_input(
    id: &'static str,
    min: u64,
    max: u64,
    value: Signal<u64>,
    set: Callback<u64>,
    described: Option<String>,
) -> impl IntoView {
    view! {
        <input
            id=id
            data-testid=id
            type="number"
            min=min
            max=max
            step="1"
            inputmode="numeric"
            aria-describedby=described
            prop:value=move || value.get().to_string()
            on:input=move |ev| {
                if let Ok(n) = event_target_value(&ev).trim().parse::<u64>() {
                    set.run(n.clamp(min, max))
                }
            }
            // Leaving the box shows the value in use, not a half-typed or refused entry.
            on:change=move |ev| {
                event_target::<web_sys::HtmlInputElement>(&ev).set_value(&value.get_untracked().to_string())
            }
        />
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
