use fesd_dsl::pss_model;

pss_model! {
    Car {
        states    { q, v }
        controls  { u }
        switching { c = v - 10.0 }
        regions   { fast: c > 0 => [vv, u * 3.0], slow: c < 0 => [v, u] }
    }
}

fn main() {}
