"""What a lab is: its folder, its description (lab.toml) and the C++ made from it."""
