use fesd_dsl::pss_model;

pss_model! {
    Point {
        states    { r: 3 }
        controls  { u }
        switching { c = u }
        regions   { up: [+] => [u], down: [-] => [-u] }
        ocp reach { intervals 10, horizon 1.0, x0 [0.0, 0.0, 0.0], terminal { r == [1.0, 2.0] } }
    }
}

fn main() {}
