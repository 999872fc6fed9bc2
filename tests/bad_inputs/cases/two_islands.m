function mpc = tiny3
%TINY3  A 5-bus test case for the bad-input catalogue: a triangle with two generators and an
%island 4-5 with its own generator at bus 4 (two energized islands: one PTDF cannot hold them).
mpc.version = '2';
mpc.baseMVA = 100;
%% bus_i type Pd Qd Gs Bs area Vm Va baseKV zone Vmax Vmin
mpc.bus = [
	1	3	0	0	0	0	1	1	0	230	1	1.1	0.9;
	2	1	100	30	0	0	1	1	0	230	1	1.1	0.9;
	3	1	50	10	0	0	1	1	0	230	1	1.1	0.9;
	4	2	20	5	0	0	1	1	0	230	1	1.1	0.9;
	5	1	10	5	0	0	1	1	0	230	1	1.1	0.9;
];
%% bus Pg Qg Qmax Qmin Vg mBase status Pmax Pmin
mpc.gen = [
	1	0	0	100	-100	1	100	1	200	0;
	3	0	0	100	-100	1	100	1	100	0;
	4	0	0	100	-100	1	100	1	100	0;
];
%% fbus tbus r x b rateA rateB rateC ratio angle status angmin angmax
mpc.branch = [
	1	2	0.01	0.1	0	100	100	100	0	0	1	-360	360;
	2	3	0.01	0.1	0	100	100	100	0	0	1	-360	360;
	1	3	0.01	0.1	0	100	100	100	0	0	1	-360	360;
	4	5	0.01	0.1	0	100	100	100	0	0	1	-360	360;
];
mpc.gencost = [
	2	0	0	2	20	0;
	2	0	0	2	30	0;
	2	0	0	2	40	0;
];
