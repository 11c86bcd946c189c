use fesd_dsl::cls_model;

cls_model! {
    Block {
        q { x, y }
        v { vx, vy }
        params { e = 0.5 }
        contacts { floor: gap y, restitution e }
    }
}

fn main() {}
