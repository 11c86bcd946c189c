use fesd_dsl::pss_model;

pss_model! {
    Car {
        states    { q, v }
        controls  { u }
        switching { speed = v - 10.0 }
        regions   { fast: speed > 0 && grip < 0 => [v, u * 3.0], slow: speed < 0 => [v, u] }
    }
}

fn main() {}
