use fesd_dsl::pss_model;

pss_model! {
    Car {
        states    { q, v }
        controls  { u }
        switching { v = q - 10.0 }
        regions   { fast: [+] => [v, u * 3.0], slow: [-] => [v, u] }
    }
}

fn main() {}
