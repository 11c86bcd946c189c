use fesd_dsl::pss_model;

pss_model! {
    Car {
        const K = 2.0 * v;
        states    { q, v }
        controls  { u }
        switching { c = v - K }
        regions   { fast: [+] => [v, u * 3.0], slow: [-] => [v, u] }
        ocp go { intervals 10, horizon 15.0, x0 [0.0, 0.0] }
    }
}

fn main() {}
