use fesd_dsl::pss_model;

pss_model! {
    Car {
        states    { q, v }
        controls  { u }
        switching { c = v - 10.0 }
        regions   { fast: [+] => { der(q) = v }, slow: [-] => { der(q) = v; der(v) = u } }
    }
}

fn main() {}
