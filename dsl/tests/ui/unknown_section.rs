use fesd_dsl::pss_model;

pss_model! {
    Car {
        states    { q, v }
        inputs    { u }
    }
}

fn main() {}
