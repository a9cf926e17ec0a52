vec3 colour() { return KF_Colour(); }
