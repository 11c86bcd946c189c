use fesd_dsl::cls_model;

cls_model! {
    Block {
        q { x, y }
        v { vx, vy }
        mass [[1.0, 0.0], [0.0]]
        contacts { floor: gap y }
    }
}

fn main() {}
