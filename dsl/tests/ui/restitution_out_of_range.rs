use fesd_dsl::cls_model;

cls_model! {
    Block {
        q { x, y }
        v { vx, vy }
        contacts { floor: gap y, restitution 1.5 }
    }
}

fn main() {}
