use fesd_dsl::pss_model;

pss_model! {
    Car {
        states    { q, v }
        controls  { u }
        switching { c = v - 10.0 }
        regions   { fast: [+] => [v, u * 3.0], slow: [-] => [v, u] }
        ocp go { intervals 10, horizon 15.0, x0 [0.0, 0.0], terminal { q == 200.0, u == 0.0 } }
    }
}

fn main() {}
